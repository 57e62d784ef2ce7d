import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite'
import { DataVersionWatcher } from '../db/data_version'
import { returnedRow } from '../db/returned_row'
import type { Limits, Plan } from './plans'
import { QuotaResets } from './quota_resets'
import type { Access, ApiKey, KeyStore, NewApiKey, RolledKeys } from './store'

interface KeyRow extends ApiKey {
  hash: string
}

const COLUMNS = `id, hash, name, plan, rpm, rpd, access, created_at AS createdAt, expires_at AS expiresAt,
  revoked_at AS revokedAt, last_used_at AS lastUsedAt, rolled_from AS rolledFrom,
  coalesce(quota_id, id) AS quotaId, quota_reset_at AS quotaResetAt`

type InsertParameters = [string, string, string, number, number, string, string | null, string]

/** What a SQLite key store reads besides the database; tests pass their own. */
export interface SqliteKeyStoreOptions {
  /** Milliseconds since the epoch, for `createdAt`, `revokedAt`, `quotaResetAt` and whether a key expired. */
  clock?: () => number
  /** Tells when another process (the CLI) changed keys; one per database, shared with the page cache. */
  watcher?: DataVersionWatcher
}

/**
 * KeyStore on bun:sqlite. Unrevoked keys are held in a map by hash, reloaded
 * when the DataVersionWatcher says another connection, such as the CLI, has
 * committed (so within DATA_VERSION_CHECK_MS of a change). Writes through
 * this store reload it directly; so give a connection one store.
 */
export class SqliteKeyStore implements KeyStore {
  #db: Database
  #clock: () => number
  #watcher: DataVersionWatcher
  #unrevoked: Statement<KeyRow, []>
  #all: Statement<KeyRow, []>
  #byId: Statement<KeyRow, [number]>
  #insert: Statement<KeyRow, InsertParameters>
  #insertFirst: Statement<KeyRow, InsertParameters>
  #insertSuccessor: Statement<KeyRow, [string, string | null, string, number, string]>
  #revoke: Statement<KeyRow, [string, number]>
  #setPlan: Statement<KeyRow, [string, number, number, number]>
  #setExpiry: Statement<KeyRow, [string | null, number]>
  #setAccess: Statement<KeyRow, [string, number]>
  #resetQuota: Statement<KeyRow, [string, number]>
  #endBy: Statement<KeyRow, [string, number]>
  #recordUse: Statement<unknown, [string, number]>
  #byHash = new Map<string, ApiKey>()
  #quotaResets = new QuotaResets()
  // No version yet: the first lookup loads the map.
  #seenVersion = -1

  constructor(
    db: Database,
    { clock = Date.now, watcher = new DataVersionWatcher(db, clock) }: SqliteKeyStoreOptions = {},
  ) {
    this.#db = db
    this.#clock = clock
    this.#watcher = watcher
    this.#unrevoked = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL`)
    this.#all = db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY id`)
    this.#byId = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?1`)
    const insert = 'INSERT INTO api_keys (hash, name, plan, rpm, rpd, access, expires_at, created_at)'
    this.#insert = db.prepare(`${insert} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING ${COLUMNS}`)
    this.#insertFirst = db.prepare(
      `${insert} SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8
       WHERE NOT EXISTS (SELECT 1 FROM api_keys) RETURNING ${COLUMNS}`,
    )
    this.#insertSuccessor = db.prepare(
      `INSERT INTO api_keys (hash, name, plan, rpm, rpd, access, expires_at, created_at, rolled_from, quota_id)
       SELECT ?1, name, plan, rpm, rpd, access, ?2, ?3, id, coalesce(quota_id, id) FROM api_keys
       WHERE id = ?4 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?5) RETURNING ${COLUMNS}`,
    )
    this.#revoke = db.prepare(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?1) WHERE id = ?2 RETURNING ${COLUMNS}`,
    )
    // A change to an unrevoked key: the id is the last parameter.
    const updateUnrevoked = <P extends SQLQueryBindings[]>(assignments: string, idParameter: number) =>
      db.prepare<KeyRow, P>(
        `UPDATE api_keys SET ${assignments} WHERE id = ?${idParameter} AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      )
    this.#setPlan = updateUnrevoked('plan = ?1, rpm = ?2, rpd = ?3', 4)
    this.#setExpiry = updateUnrevoked('expires_at = ?1', 2)
    this.#setAccess = updateUnrevoked('access = ?1', 2)
    this.#resetQuota = updateUnrevoked('quota_reset_at = ?1', 2)
    this.#endBy = db.prepare(
      `UPDATE api_keys SET expires_at = min(coalesce(expires_at, ?1), ?1) WHERE id = ?2 RETURNING ${COLUMNS}`,
    )
    this.#recordUse = db.prepare(
      'UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)',
    )
  }

  findActive(hash: string): ApiKey | undefined {
    const version = this.#watcher.recent()
    if (version !== this.#seenVersion) {
      this.#seenVersion = version
      this.#reload()
    }
    return this.#byHash.get(hash)
  }

  create(hash: string, key: NewApiKey): ApiKey {
    const row = returnedRow(this.#insert.get(...this.#insertParameters(hash, key)))
    this.#reload()
    return withoutHash(row)
  }

  createFirst(hash: string, key: NewApiKey): ApiKey | undefined {
    return this.#written(this.#insertFirst.get(...this.#insertParameters(hash, key)))
  }

  list(): ApiKey[] {
    return this.#all.all().map(withoutHash)
  }

  get(id: number): ApiKey | undefined {
    const row = this.#byId.get(id)
    return row ? withoutHash(row) : undefined
  }

  revoke(id: number): ApiKey | undefined {
    return this.#written(this.#revoke.get(this.#now(), id))
  }

  setPlan(id: number, plan: Plan, limits: Limits): ApiKey | undefined {
    return this.#written(this.#setPlan.get(plan, limits.rpm, limits.rpd, id))
  }

  setExpiry(id: number, expiresAt: string | null): ApiKey | undefined {
    return this.#written(this.#setExpiry.get(expiresAt, id))
  }

  setAccess(id: number, access: Access): ApiKey | undefined {
    return this.#written(this.#setAccess.get(access, id))
  }

  resetQuota(id: number): ApiKey | undefined {
    return this.#written(this.#resetQuota.get(this.#now(), id))
  }

  roll(id: number, hash: string, oldExpiresAt: string, expiresAt: string | null): RolledKeys | undefined {
    const now = this.#now()
    const rolled = this.#db
      .transaction((): RolledKeys | undefined => {
        const successor = this.#insertSuccessor.get(hash, expiresAt, now, id, now)
        if (successor === null) return undefined
        return { old: withoutHash(returnedRow(this.#endBy.get(oldExpiresAt, id))), successor: withoutHash(successor) }
      })
      .immediate()
    this.#reload()
    return rolled
  }

  recordUse(ids: readonly number[], minute: string): void {
    this.#db
      .transaction(() => {
        for (const id of ids) this.#recordUse.run(minute, id)
      })
      .immediate()
  }

  onQuotaReset(listener: (key: ApiKey) => void): void {
    this.#quotaResets.listen(listener)
  }

  #now(): string {
    return new Date(this.#clock()).toISOString()
  }

  #insertParameters(hash: string, key: NewApiKey): InsertParameters {
    const { name, plan, rpm, rpd, access = 'read-write', expiresAt = null } = key
    return [hash, name, plan, rpm, rpd, access, expiresAt, this.#now()]
  }

  // Our own commits do not move data_version, so every write reloads explicitly.
  #written(row: KeyRow | null): ApiKey | undefined {
    this.#reload()
    return row ? withoutHash(row) : undefined
  }

  #reload(): void {
    const byHash = new Map<string, ApiKey>()
    for (const row of this.#unrevoked.all()) byHash.set(row.hash, withoutHash(row))
    this.#byHash = byHash
    this.#quotaResets.loaded(byHash.values())
  }
}

function withoutHash({ hash: _hash, ...key }: KeyRow): ApiKey {
  return key
}
