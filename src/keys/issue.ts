import { generateApiKey, hashApiKey } from './api_key'
import type { ApiKey, KeyStore, NewApiKey } from './store'

/** A key just made: its record, and the secret, which exists only here and is never stored. */
export interface IssuedKey {
  key: ApiKey
  secret: string
}

/** Makes a new secret and stores its hash with the key's plan and limits. */
export async function issueKey(store: KeyStore, key: NewApiKey): Promise<IssuedKey> {
  const secret = generateApiKey()
  return { key: await store.create(hashApiKey(secret), key), secret }
}

/**
 * Like `issueKey`, but only on a store with no keys at all; undefined when
 * there was one. A store with keys is only read, so a start on a database
 * it cannot write (read-only, full) does not fail here.
 */
export async function issueFirstKey(store: KeyStore, key: NewApiKey): Promise<IssuedKey | undefined> {
  if ((await store.list()).length > 0) return undefined
  const secret = generateApiKey()
  const created = await store.createFirst(hashApiKey(secret), key)
  return created && { key: created, secret }
}
