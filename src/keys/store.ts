import type { Awaitable } from '../awaitable'
import type { Limits, Plan } from './plans'

/** What a key may do: `read-only` keys may list and get, never create (403 `insufficient_scope`). */
export const ACCESS_LEVELS = ['read-write', 'read-only'] as const
export type Access = (typeof ACCESS_LEVELS)[number]

/** An API key as stored: never the secret, only what describes and limits it. Times are ISO 8601, UTC. */
export interface ApiKey extends Limits {
  id: number
  name: string
  plan: Plan
  access: Access
  createdAt: string
  /** When the key stops working; null: never. */
  expiresAt: string | null
  revokedAt: string | null
  /** The start of the last clock minute the key was used in (recorded once a minute, so this is its precision). */
  lastUsedAt: string | null
  /** The key this one was rolled from, if any. */
  rolledFrom: number | null
  /**
   * The key whose counters (and ban) this one is counted on: its own id, or
   * for a rolled key the first key of its line, so rolling never resets or
   * doubles a quota.
   */
  quotaId: number
  /** When `keys unban` last lifted the ban and cleared the counters; a running server applies each new one once. */
  quotaResetAt: string | null
}

/** What a new key is made of; the store receives its hash, never the secret. */
export interface NewApiKey extends Limits {
  name: string
  plan: Plan
  /** `read-write` when absent. */
  access?: Access
  /** ISO 8601; never when absent. */
  expiresAt?: string | null
}

/** A key just rolled: its successor, and the old key with the expiry its grace ends at. */
export interface RolledKeys {
  old: ApiKey
  successor: ApiKey
}

/**
 * How soon a key made, changed or revoked by another process (the CLI,
 * another instance) is seen by every running instance: the promise the
 * documentation makes, kept by DATA_VERSION_CHECK_MS on SQLite and
 * KEY_POLL_MS on PostgreSQL.
 */
export const KEY_CHANGE_SEEN_WITHIN_MS = 1000

/**
 * Where keys live: SQLite (`SqliteKeyStore`) by default, PostgreSQL
 * (`PostgresKeyStore`) for several instances. A call may answer at once or
 * with a promise. Every change but `recordUse` reaches the other processes'
 * key maps within KEY_CHANGE_SEEN_WITHIN_MS.
 */
export interface KeyStore {
  /**
   * The unrevoked key with this hash (expired or not: the caller compares
   * `expiresAt` with its clock). Answered from memory on the request path;
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
  /** The changes below apply to unrevoked keys only: undefined when the key is revoked or unknown. */
  setPlan(id: number, plan: Plan, limits: Limits): Awaitable<ApiKey | undefined>
  setExpiry(id: number, expiresAt: string | null): Awaitable<ApiKey | undefined>
  setAccess(id: number, access: Access): Awaitable<ApiKey | undefined>
  /** Notes that the key's ban and counters are to be cleared; each running server applies it once (`onQuotaReset`). */
  resetQuota(id: number): Awaitable<ApiKey | undefined>
  /**
   * In one transaction: a successor to key `id` (same name, plan, limits and
   * access, counted on the same quota) with `hash` and `expiresAt`, and the
   * old key set to expire at `oldExpiresAt` (or sooner, if it already
   * would). Undefined when the old key is revoked, expired or unknown.
   */
  roll(id: number, hash: string, oldExpiresAt: string, expiresAt: string | null): Awaitable<RolledKeys | undefined>
  /** Records that these keys were used in the minute starting at `minute` (ISO); a later record is never moved back. */
  recordUse(ids: readonly number[], minute: string): Awaitable<void>
  /** Calls `listener` once for every new `resetQuota` of an unrevoked key, as this process sees it (not those made before it started). */
  onQuotaReset(listener: (key: ApiKey) => void): void
}
