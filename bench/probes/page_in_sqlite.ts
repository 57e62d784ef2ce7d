// A page SQLite reads every time (the cold list), built two ways, in process:
//   rows    as the service does: SqlitePetStore.list (a row object per pet, one
//           more row than the page to know whether another follows), then
//           JSON.stringify of the page;
//   in SQL  the body made inside SQLite with json_group_array(json_object(...)),
//           one string per page, with whether another page follows and the
//           last id (for the Link) in the same row.
// Before timing, both are run on the same random pages and must give the
// same bytes (exit 1 if not), so the faster one is a candidate, not a bug.
//
//   bun bench/probes/page_in_sqlite.ts [--rounds 5] [--iterations 20000] [--pets 100000]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openDatabase } from '../../src/db/sqlite'
import { DEFAULT_LIMIT } from '../../src/pets/schema'
import { SqlitePetStore } from '../../src/pets/sqlite_store'
import { spread, timeInProcess } from '../lib/rounds'
import { seedDatabase } from '../lib/seed'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '20000' },
    pets: { type: 'string', default: '100000' },
  },
})
const petCount = Number(values.pets)
const dir = mkdtempSync(join(tmpdir(), 'animal-store-page-json-'))
const file = join(dir, 'bench.sqlite')
await seedDatabase(file, petCount)
const db = openDatabase(file)
const store = new SqlitePetStore(db)
// The page's rows numbered, one more than the page asked for: the extra one only says that another follows.
const inSql = db.prepare<{ body: string; rows: number; last: number | null }, [number, number]>(
  `SELECT json_group_array(json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status))
            FILTER (WHERE n <= ?2) AS body,
          count(*) AS rows,
          max(id) FILTER (WHERE n <= ?2) AS last
     FROM (SELECT id, name, category_id, status, row_number() OVER (ORDER BY id) AS n
             FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2 + 1)`,
)
const limit = DEFAULT_LIMIT
const randomAfter = () => Math.floor(Math.random() * petCount)

const byRows = (after: number) => {
  const page = store.list({ limit, after })
  return { body: JSON.stringify(page.pets), more: page.more }
}
const bySql = (after: number) => {
  const row = inSql.get(after, limit) as { body: string; rows: number }
  return { body: row.body, more: row.rows > limit }
}

try {
  for (let i = 0; i < 2000; i++) {
    // Past the last pet too: an empty page must read "[]" both ways.
    const after = i === 0 ? petCount + 10 : randomAfter()
    const [rows, sql] = [byRows(after), bySql(after)]
    if (rows.body !== sql.body || rows.more !== sql.more) {
      console.error(`different answers after ${after}:\n  rows:   ${rows.body.slice(0, 120)}\n  in SQL: ${sql.body}`)
      process.exit(1)
    }
  }
  const samples = await timeInProcess(
    { rows: () => byRows(randomAfter()), 'in SQL': () => bySql(randomAfter()) },
    { rounds: Number(values.rounds), iterations: Number(values.iterations) },
  )
  console.log(`A cold page of ${limit} of ${petCount} pets, µs per page, median [min–max] of ${values.rounds} rounds:`)
  for (const [name, times] of Object.entries(samples)) console.log(`  ${name.padEnd(8)} ${spread(times)}`)
} finally {
  db.close()
  rmSync(dir, { recursive: true, force: true })
}
