// How long upgrading a version-1.1 database to 1.2 takes: the first start's
// migration (SQLite: count the pets, rebuild the table with AUTOINCREMENT;
// PostgreSQL: count the pets into the inventory's rows, writes to pets waiting
// meanwhile). Each round builds a 1.1 database of --pets pets, then times the
// migration alone; the figure is the median of the rounds with their range.
// PostgreSQL is measured when --postgres (or TEST_DATABASE_URL) names one, in a
// schema of its own that is dropped afterwards.
//
//   bun bench/probes/upgrade_cost.ts [--pets 1000000] [--rounds 3] [--postgres postgres://...]
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { SQL } from 'bun'
import { migratePostgres } from '../../src/db/postgres'
import { postgresMigrations } from '../../src/db/postgres_migrations'
import { migrateSqlite } from '../../src/db/sqlite'
import { sqliteMigrations } from '../../src/db/sqlite_migrations'
import { spread } from '../lib/rounds'

const { values } = parseArgs({
  options: {
    pets: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL },
  },
})
const pets = Number(values.pets)
const rounds = Number(values.rounds)
// What version 1.1 (baa4558) had: the migrations before those of 1.2.
const SQLITE_1_1 = sqliteMigrations.filter((migration) => migration.version <= 5)
const POSTGRES_1_1 = postgresMigrations.filter((migration) => migration.version <= 4)

/** A timing of an upgrade that lost a pet would mean nothing. */
function expectCounted(counted: number, engine: string): void {
  if (counted !== pets) throw new Error(`${engine}: the upgraded inventory counts ${counted} pets of ${pets}`)
}

async function sqliteRound(dir: string, round: number): Promise<number> {
  const db = new Database(join(dir, `round-${round}.sqlite`), { create: true, strict: true })
  try {
    db.exec('PRAGMA journal_mode = WAL')
    migrateSqlite(db, SQLITE_1_1)
    db.exec(`WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${pets})
      INSERT INTO pets (name, category_id, status)
      SELECT 'pet ' || i, i, CASE i % 3 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' ELSE 'sold' END FROM n`)
    const start = performance.now()
    migrateSqlite(db, sqliteMigrations)
    const took = performance.now() - start
    const { counted } = db.query('SELECT sum(count) AS counted FROM pet_counts').get() as { counted: number }
    expectCounted(Number(counted), 'SQLite')
    return took
  } finally {
    db.close()
  }
}

async function postgresRound(url: string, round: number): Promise<number> {
  const schema = `upgrade_cost_${process.pid}_${round}`
  const db = new SQL(url, { max: 1, connection: { search_path: schema } })
  try {
    await db.unsafe(`CREATE SCHEMA ${schema}`)
    await migratePostgres(db, POSTGRES_1_1)
    await db`INSERT INTO pets (name, category_id, status)
      SELECT 'pet ' || g, g, (ARRAY['available', 'pending', 'sold'])[1 + g % 3] FROM generate_series(1, ${pets}::int) g`
    await db`ANALYZE pets`
    const start = performance.now()
    await migratePostgres(db, postgresMigrations)
    const took = performance.now() - start
    const [{ counted }] = await db`SELECT sum(count) AS counted FROM pet_counts`
    expectCounted(Number(counted), 'PostgreSQL')
    return took
  } finally {
    await db.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await db.close()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'animal-store-upgrade-'))
try {
  const sqlite: number[] = []
  const postgres: number[] = []
  for (let round = 0; round < rounds; round++) {
    sqlite.push(await sqliteRound(dir, round))
    if (values.postgres) postgres.push(await postgresRound(values.postgres, round))
  }
  console.log(`Upgrading 1.1 to 1.2 with ${pets.toLocaleString('en')} pets, ms, median [min–max] of ${rounds} rounds:`)
  console.log(`  SQLite:     ${spread(sqlite, 0)}`)
  console.log(`  PostgreSQL: ${values.postgres ? spread(postgres, 0) : 'not measured (no --postgres)'}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
