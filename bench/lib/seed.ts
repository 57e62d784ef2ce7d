import { SQL } from 'bun'
import { openPostgres } from '../../src/db/postgres'
import { openDatabase } from '../../src/db/sqlite'
import { closeDatabase } from '../../src/db/wal_ownership'
import { issueKey } from '../../src/keys/issue'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { PostgresKeyStore } from '../../src/keys/postgres_store'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import type { KeyStore } from '../../src/keys/store'

/** The keys a bench run uses. */
export interface BenchKeys {
  /** Enterprise limits far above what a run sends: the limiter is measured, never hit. */
  unlimited: string
  /** A Free key, driven over its limit for the 429 scenario. */
  free: string
}

const STATUSES = ['available', 'pending', 'sold'] as const

/** Creates the database at `path` with `pets` pets (statuses in turn) and the bench's keys. */
export async function seedDatabase(path: string, pets: number): Promise<BenchKeys> {
  const db = openDatabase(path)
  const insert = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3)')
  db.transaction(() => {
    for (let i = 1; i <= pets; i++) insert.run(`pet ${i}`, 1 + (i % 97), STATUSES[i % 3]!)
  })()
  const keys = await issueBenchKeys(new SqliteKeyStore(db))
  insert.finalize()
  // Closed cleanly: the file holds everything, so a peer can be given a copy of it.
  closeDatabase(db)
  return keys
}

/**
 * Creates the database `database` on the PostgreSQL server at `serverUrl` with
 * `pets` pets (statuses in turn, as in SQLite) and the bench's keys. Returns
 * the keys and the new database's URL.
 */
export async function seedPostgres(
  serverUrl: string,
  database: string,
  pets: number,
): Promise<{ keys: BenchKeys; url: string }> {
  const admin = new SQL(serverUrl, { max: 1 })
  await admin`CREATE DATABASE ${admin(database)}`
  await admin.close()
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  const sql = await openPostgres(url.toString(), { max: 1 })
  // Counted once at the end, as migration 5 counts: the inventory's trigger, run for each of the pets, made
  // one statement take 20 s.
  await sql.begin(async (tx) => {
    await tx`ALTER TABLE pets DISABLE TRIGGER pet_counts_insert_delete`
    await tx`
      INSERT INTO pets (name, category_id, status)
      SELECT 'pet ' || i, 1 + i % 97, (ARRAY['available', 'pending', 'sold'])[i % 3 + 1]
      FROM generate_series(1, ${pets}::bigint) AS i`
    await tx`
      UPDATE pet_counts c SET count = t.count
      FROM (SELECT status, id % 16 AS shard, count(*) AS count FROM pets GROUP BY 1, 2) AS t
      WHERE c.status = t.status AND c.shard = t.shard`
    await tx`ALTER TABLE pets ENABLE TRIGGER pet_counts_insert_delete`
  })
  await sql`ANALYZE pets`
  const keys = await issueBenchKeys(await PostgresKeyStore.open(sql))
  await sql.close()
  return { keys, url: url.toString() }
}

/** The bench's two keys: one far above what a run sends, so the limiter is measured and never hit, and a Free one. */
async function issueBenchKeys(keys: KeyStore): Promise<BenchKeys> {
  const unlimited = await issueKey(keys, { name: 'bench', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
  const free = await issueKey(keys, { name: 'bench free', plan: 'free', ...PLAN_LIMITS.free })
  return { unlimited: unlimited.secret, free: free.secret }
}
