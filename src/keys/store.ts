import type { Awaitable } from '../awaitable'
import type { Limits, Plan } from './plans'

/** An API key as stored: never the secret, only what describes and limits it. */
export interface ApiKey extends Limits {
  id: number
  name: string
  plan: Plan
  createdAt: string
  revokedAt: string | null
}

/** What a new key is made of; the store receives its hash, never the secret. */
export interface NewApiKey extends Limits {
  name: string
  plan: Plan
}

/**
 * How soon a key made, revoked or moved to another plan by another process
 * (the CLI, another instance) is seen by every running instance: the promise
 * the documentation makes, kept by DATA_VERSION_CHECK_MS on SQLite and
 * KEY_POLL_MS on PostgreSQL.
 */
export const KEY_CHANGE_SEEN_WITHIN_MS = 1000

/**
 * Where keys live: SQLite (`SqliteKeyStore`) by default, PostgreSQL
 * (`PostgresKeyStore`) for several instances. A call may answer at once or
 * with a promise.
 */
export interface KeyStore {
  /**
   * The active key with this hash. Answered from memory on the request path;
   * a change made through this store is seen by the next call, one made by
   * another process within KEY_CHANGE_SEEN_WITHIN_MS.
   */
  findActive(hash: string): ApiKey | undefined
  create(hash: string, key: NewApiKey): Awaitable<ApiKey>
  /** Creates the key only if there is none at all, atomically (instances starting together make one first key). */
  createFirst(hash: string, key: NewApiKey): Awaitable<ApiKey | undefined>
  get(id: number): Awaitable<ApiKey | undefined>
  list(): Awaitable<ApiKey[]>
  revoke(id: number): Awaitable<ApiKey | undefined>
  setPlan(id: number, plan: Plan, limits: Limits): Awaitable<ApiKey | undefined>
}
