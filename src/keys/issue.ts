import { generateApiKey, hashApiKey } from './api_key'
import { PLAN_LIMITS } from './plans'
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

/**
 * At a server's start: on a database with no keys, makes one Free key and
 * shows it once through `say`, as Elasticsearch does with its first password;
 * on one with keys, says how to make another (a key that was made but never
 * seen is then easy to replace).
 */
export async function announceFirstKey(keys: KeyStore, say: (text: string) => void): Promise<void> {
  const issued = await issueFirstKey(keys, { name: 'first key', plan: 'free', ...PLAN_LIMITS.free })
  if (issued === undefined) {
    say(`API keys exist; to make another: ${KEY_COMMANDS.source}, or ${KEY_COMMANDS.binary}`)
    return
  }
  const { key, secret } = issued
  say(
    [
      '',
      `No API keys yet, so one Free key (id ${key.id}) was created. It is shown only this once:`,
      '',
      `  ${secret}`,
      '',
      `Call the API with "Authorization: Bearer <key>". Make more keys with`,
      `  ${KEY_COMMANDS.source}     (from the source tree)`,
      `  ${KEY_COMMANDS.binary}   (with the binary)`,
      '',
    ].join('\n'),
  )
}

/** How to make a key, from the source tree and with the binary. */
const KEY_COMMANDS = {
  source: 'npm run keys -- create --plan pro --name NAME',
  binary: 'animal-store keys create --plan pro --name NAME',
}
