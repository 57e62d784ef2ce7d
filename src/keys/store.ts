import type { Database, Statement } from 'bun:sqlite'
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

/** Where keys live: SQLite by default, PostgreSQL for several instances. */
export interface KeyStore {
  /**
   * The active key with this hash. Answered from memory on the request path;
   * a change made through this store is seen by the next call, one made by
   * another process within a second (KEY_FRESHNESS_MS, KEY_POLL_MS).
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

interface KeyRow extends ApiKey {
  hash: string
}

const COLUMNS = 'id, hash, name, plan, rpm, rpd, created_at AS createdAt, revoked_at AS revokedAt'

/** How stale a lookup may be: another process's key change is seen within this. */
export const KEY_FRESHNESS_MS = 200

/**
 * KeyStore on bun:sqlite. Active keys are held in a map by hash. At most
 * every KEY_FRESHNESS_MS a lookup asks `PRAGMA data_version` whether another
 * connection, such as the CLI, has committed since (on a WAL file that costs
 * about 2 µs, too much for every request), and only then is the map
 * reloaded. Writes through this store reload it directly; so give a
 * connection one store.
 */
export class SqliteKeyStore implements KeyStore {
  #clock: () => number
  #checkedAt = -Infinity
  #dataVersion: Statement<{ data_version: number }, []>
  #active: Statement<KeyRow, []>
  #all: Statement<KeyRow, []>
  #byId: Statement<KeyRow, [number]>
  #insert: Statement<KeyRow, [string, string, string, number, number, string]>
  #insertFirst: Statement<KeyRow, [string, string, string, number, number, string]>
  #revoke: Statement<KeyRow, [string, number]>
  #setPlan: Statement<KeyRow, [string, number, number, number]>
  #byHash = new Map<string, ApiKey>()
  #seenVersion = -1

  constructor(db: Database, clock: () => number = Date.now) {
    this.#clock = clock
    this.#dataVersion = db.prepare('PRAGMA data_version')
    this.#active = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL`)
    this.#all = db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY id`)
    this.#byId = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?1`)
    this.#insert = db.prepare(
      `INSERT INTO api_keys (hash, name, plan, rpm, rpd, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING ${COLUMNS}`,
    )
    this.#insertFirst = db.prepare(
      `INSERT INTO api_keys (hash, name, plan, rpm, rpd, created_at) SELECT ?1, ?2, ?3, ?4, ?5, ?6
       WHERE NOT EXISTS (SELECT 1 FROM api_keys) RETURNING ${COLUMNS}`,
    )
    this.#revoke = db.prepare(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?1) WHERE id = ?2 RETURNING ${COLUMNS}`,
    )
    this.#setPlan = db.prepare(
      `UPDATE api_keys SET plan = ?1, rpm = ?2, rpd = ?3 WHERE id = ?4 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    )
    this.#reload()
  }

  findActive(hash: string): ApiKey | undefined {
    const now = this.#clock()
    if (now - this.#checkedAt >= KEY_FRESHNESS_MS) {
      this.#checkedAt = now
      const version = this.#dataVersion.get()!.data_version
      if (version !== this.#seenVersion) this.#reload(version)
    }
    return this.#byHash.get(hash)
  }

  create(hash: string, key: NewApiKey): ApiKey {
    const row = this.#insert.get(hash, key.name, key.plan, key.rpm, key.rpd, new Date(this.#clock()).toISOString())!
    this.#reload()
    return withoutHash(row)
  }

  createFirst(hash: string, key: NewApiKey): ApiKey | undefined {
    const row = this.#insertFirst.get(hash, key.name, key.plan, key.rpm, key.rpd, new Date(this.#clock()).toISOString())
    this.#reload()
    return row ? withoutHash(row) : undefined
  }

  list(): ApiKey[] {
    return this.#all.all().map(withoutHash)
  }

  revoke(id: number): ApiKey | undefined {
    const row = this.#revoke.get(new Date(this.#clock()).toISOString(), id)
    this.#reload()
    return row ? withoutHash(row) : undefined
  }

  setPlan(id: number, plan: Plan, limits: Limits): ApiKey | undefined {
    const row = this.#setPlan.get(plan, limits.rpm, limits.rpd, id)
    this.#reload()
    return row ? withoutHash(row) : undefined
  }

  get(id: number): ApiKey | undefined {
    const row = this.#byId.get(id)
    return row ? withoutHash(row) : undefined
  }

  // Our own commits do not move data_version, so writes above reload explicitly.
  #reload(version = this.#dataVersion.get()!.data_version): void {
    const byHash = new Map<string, ApiKey>()
    for (const row of this.#active.all()) byHash.set(row.hash, withoutHash(row))
    this.#byHash = byHash
    this.#seenVersion = version
  }
}

function withoutHash({ hash: _hash, ...key }: KeyRow): ApiKey {
  return key
}
