import type { Database, Statement } from 'bun:sqlite'
import { DataVersionWatcher } from '../db/data_version'
import { returnedRow } from '../db/returned_row'
import type { Limits, Plan } from './plans'
import type { ApiKey, KeyStore, NewApiKey } from './store'

interface KeyRow extends ApiKey {
  hash: string
}

const COLUMNS = 'id, hash, name, plan, rpm, rpd, created_at AS createdAt, revoked_at AS revokedAt'

/** What a SQLite key store reads besides the database; tests pass their own. */
export interface SqliteKeyStoreOptions {
  /** Milliseconds since the epoch, for `createdAt` and `revokedAt`. */
  clock?: () => number
  /** Tells when another process (the CLI) changed keys; one per database, shared with the page cache. */
  watcher?: DataVersionWatcher
}

/**
 * KeyStore on bun:sqlite. Active keys are held in a map by hash, reloaded
 * when the DataVersionWatcher says another connection, such as the CLI, has
 * committed (so within DATA_VERSION_CHECK_MS of a change). Writes through
 * this store reload it directly; so give a connection one store.
 */
export class SqliteKeyStore implements KeyStore {
  #clock: () => number
  #watcher: DataVersionWatcher
  #active: Statement<KeyRow, []>
  #all: Statement<KeyRow, []>
  #byId: Statement<KeyRow, [number]>
  #insert: Statement<KeyRow, [string, string, string, number, number, string]>
  #insertFirst: Statement<KeyRow, [string, string, string, number, number, string]>
  #revoke: Statement<KeyRow, [string, number]>
  #setPlan: Statement<KeyRow, [string, number, number, number]>
  #byHash = new Map<string, ApiKey>()
  // No version yet: the first lookup loads the map.
  #seenVersion = -1

  constructor(
    db: Database,
    { clock = Date.now, watcher = new DataVersionWatcher(db, clock) }: SqliteKeyStoreOptions = {},
  ) {
    this.#clock = clock
    this.#watcher = watcher
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
  }

  findActive(hash: string): ApiKey | undefined {
    const version = this.#watcher.current()
    if (version !== this.#seenVersion) {
      this.#seenVersion = version
      this.#reload()
    }
    return this.#byHash.get(hash)
  }

  create(hash: string, key: NewApiKey): ApiKey {
    const row = returnedRow(
      this.#insert.get(hash, key.name, key.plan, key.rpm, key.rpd, new Date(this.#clock()).toISOString()),
    )
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
  #reload(): void {
    const byHash = new Map<string, ApiKey>()
    for (const row of this.#active.all()) byHash.set(row.hash, withoutHash(row))
    this.#byHash = byHash
  }
}

function withoutHash({ hash: _hash, ...key }: KeyRow): ApiKey {
  return key
}
