import type { SQL } from 'bun'
import { returnedRow } from '../db/returned_row'
import type { Limits, Plan } from './plans'
import { QuotaResets } from './quota_resets'
import type { Access, ApiKey, KeyStore, NewApiKey, RolledKeys } from './store'

/** How often each instance asks whether keys changed: a CLI change reaches every instance within this (plus one query). */
export const KEY_POLL_MS = 250

/** An api_keys row as Bun reads it: bigint as text, timestamptz as a Date. */
interface KeyRow {
  id: string
  hash: string
  name: string
  plan: Plan
  rpm: string
  rpd: string
  access: Access
  createdAt: Date
  expiresAt: Date | null
  revokedAt: Date | null
  lastUsedAt: Date | null
  rolledFrom: string | null
  quotaId: string
  quotaResetAt: Date | null
}

const COLUMNS = `id, hash, name, plan, rpm, rpd, access, created_at AS "createdAt", expires_at AS "expiresAt",
  revoked_at AS "revokedAt", last_used_at AS "lastUsedAt", rolled_from AS "rolledFrom",
  coalesce(quota_id, id) AS "quotaId", quota_reset_at AS "quotaResetAt"`

/**
 * KeyStore on PostgreSQL, shared by every instance. Active keys are held in
 * a map by hash, as in the SQLite store, so a request never waits for the
 * database. Every KEY_POLL_MS the store asks for the sum of the `changed`
 * column, which every insert and update raises (whatever order transactions
 * commit in), and reloads the map when it moved. A failed poll keeps the
 * last map; `/health` reports the database.
 */
export class PostgresKeyStore implements KeyStore {
  #sql: SQL
  #byHash = new Map<string, ApiKey>()
  #seenChanges = ''
  #timer: Timer | undefined
  #looking: Promise<void> | undefined
  #quotaResets = new QuotaResets()

  private constructor(sql: SQL) {
    this.#sql = sql
  }

  /** A store with its map loaded; with `pollMs`, kept fresh until `close`. */
  static async open(sql: SQL, { pollMs }: { pollMs?: number } = {}): Promise<PostgresKeyStore> {
    const store = new PostgresKeyStore(sql)
    await store.refresh()
    if (pollMs !== undefined) {
      store.#timer = setInterval(() => {
        if (!store.#looking) store.refresh().catch(() => {})
      }, pollMs)
      store.#timer.unref()
    }
    return store
  }

  findActive(hash: string): ApiKey | undefined {
    return this.#byHash.get(hash)
  }

  /** Reloads the map if any key changed since the last look. */
  async refresh(): Promise<void> {
    // A look under way may have read the sum before the caller's change: wait for it, then look again.
    while (this.#looking) await this.#looking.catch(() => {})
    this.#looking = this.#look()
    try {
      await this.#looking
    } finally {
      this.#looking = undefined
    }
  }

  async #look(): Promise<void> {
    const [{ changes }]: [{ changes: string }] = await this
      .#sql`SELECT coalesce(sum(changed), 0)::text AS changes FROM api_keys`
    if (changes === this.#seenChanges) return
    const rows: KeyRow[] = await this.#sql.unsafe(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL`)
    const byHash = new Map<string, ApiKey>()
    for (const row of rows) byHash.set(row.hash, toApiKey(row))
    this.#byHash = byHash
    this.#seenChanges = changes
    this.#quotaResets.loaded(byHash.values())
  }

  async create(hash: string, key: NewApiKey): Promise<ApiKey> {
    const [row]: KeyRow[] = await this.#sql`
      INSERT INTO api_keys (hash, name, plan, rpm, rpd, access, expires_at, created_at)
      VALUES (${hash}, ${key.name}, ${key.plan}, ${key.rpm}, ${key.rpd}, ${key.access ?? 'read-write'},
        ${key.expiresAt ?? null}, now())
      RETURNING ${this.#sql.unsafe(COLUMNS)}`
    await this.refresh()
    return toApiKey(returnedRow(row))
  }

  async createFirst(hash: string, key: NewApiKey): Promise<ApiKey | undefined> {
    const row = await this.#sql.begin(async (tx) => {
      // Instances starting together on an empty database queue here; only the first finds no key.
      await tx`LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE`
      const [inserted]: KeyRow[] = await tx`
        INSERT INTO api_keys (hash, name, plan, rpm, rpd, access, expires_at, created_at)
        SELECT ${hash}, ${key.name}, ${key.plan}, ${key.rpm}, ${key.rpd}, ${key.access ?? 'read-write'},
          ${key.expiresAt ?? null}, now()
        WHERE NOT EXISTS (SELECT 1 FROM api_keys) RETURNING ${tx.unsafe(COLUMNS)}`
      return inserted
    })
    await this.refresh()
    return row && toApiKey(row)
  }

  async list(): Promise<ApiKey[]> {
    const rows: KeyRow[] = await this.#sql.unsafe(`SELECT ${COLUMNS} FROM api_keys ORDER BY id`)
    return rows.map(toApiKey)
  }

  async get(id: number): Promise<ApiKey | undefined> {
    const [row]: KeyRow[] = await this.#sql`SELECT ${this.#sql.unsafe(COLUMNS)} FROM api_keys WHERE id = ${id}`
    return row && toApiKey(row)
  }

  async revoke(id: number): Promise<ApiKey | undefined> {
    const [row]: KeyRow[] = await this.#sql`
      UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()), changed = nextval('api_key_changes')
      WHERE id = ${id} RETURNING ${this.#sql.unsafe(COLUMNS)}`
    await this.refresh()
    return row && toApiKey(row)
  }

  setPlan(id: number, plan: Plan, limits: Limits): Promise<ApiKey | undefined> {
    return this.#updateUnrevoked(id, { plan, rpm: limits.rpm, rpd: limits.rpd })
  }

  setExpiry(id: number, expiresAt: string | null): Promise<ApiKey | undefined> {
    return this.#updateUnrevoked(id, { expires_at: expiresAt })
  }

  setAccess(id: number, access: Access): Promise<ApiKey | undefined> {
    return this.#updateUnrevoked(id, { access })
  }

  resetQuota(id: number): Promise<ApiKey | undefined> {
    // The reset's time names it (ratelimit/subject.ts quotaResetName): any clock will do, as on SQLite.
    return this.#updateUnrevoked(id, { quota_reset_at: new Date().toISOString() })
  }

  async roll(
    id: number,
    hash: string,
    oldExpiresAt: string,
    expiresAt: string | null,
  ): Promise<RolledKeys | undefined> {
    const rolled = await this.#sql.begin(async (tx) => {
      const [successor]: KeyRow[] = await tx`
        INSERT INTO api_keys (hash, name, plan, rpm, rpd, access, expires_at, created_at, rolled_from, quota_id)
        SELECT ${hash}, name, plan, rpm, rpd, access, ${expiresAt}, now(), id, coalesce(quota_id, id) FROM api_keys
        WHERE id = ${id} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
        FOR UPDATE
        RETURNING ${tx.unsafe(COLUMNS)}`
      if (successor === undefined) return undefined
      const [old]: KeyRow[] = await tx`
        UPDATE api_keys SET expires_at = least(coalesce(expires_at, ${oldExpiresAt}), ${oldExpiresAt}),
          changed = nextval('api_key_changes')
        WHERE id = ${id} RETURNING ${tx.unsafe(COLUMNS)}`
      return { old: toApiKey(returnedRow(old)), successor: toApiKey(successor) }
    })
    await this.refresh()
    return rolled
  }

  async recordUse(ids: readonly number[], minute: string): Promise<void> {
    // No new "changed" number: when a key was last used is nothing the instances' maps hold.
    await this.#sql`
      UPDATE api_keys SET last_used_at = ${minute}
      WHERE id = ANY(${this.#sql.array([...ids], 'INT8')}) AND (last_used_at IS NULL OR last_used_at < ${minute})`
  }

  onQuotaReset(listener: (key: ApiKey) => void): void {
    this.#quotaResets.listen(listener)
  }

  async #updateUnrevoked(id: number, columns: Record<string, unknown>): Promise<ApiKey | undefined> {
    const [row]: KeyRow[] = await this.#sql`
      UPDATE api_keys SET ${this.#sql(columns)}, changed = nextval('api_key_changes')
      WHERE id = ${id} AND revoked_at IS NULL RETURNING ${this.#sql.unsafe(COLUMNS)}`
    await this.refresh()
    return row && toApiKey(row)
  }

  /** Stops polling; the pool is closed by its owner. */
  close(): void {
    clearInterval(this.#timer)
  }
}

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: Number(row.id),
    name: row.name,
    plan: row.plan,
    rpm: Number(row.rpm),
    rpd: Number(row.rpd),
    access: row.access,
    createdAt: row.createdAt.toISOString(),
    expiresAt: isoOrNull(row.expiresAt),
    revokedAt: isoOrNull(row.revokedAt),
    lastUsedAt: isoOrNull(row.lastUsedAt),
    rolledFrom: row.rolledFrom === null ? null : Number(row.rolledFrom),
    quotaId: Number(row.quotaId),
    quotaResetAt: isoOrNull(row.quotaResetAt),
  }
}

function isoOrNull(date: Date | null): string | null {
  return date === null ? null : date.toISOString()
}
