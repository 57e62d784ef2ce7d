// What a bare `LIMIT ?2` costs a page SQLite reads (the cold list), in
// process: the service's page statement (`LIMIT +?2`, db/bound_limit.ts)
// against the same with a bare `LIMIT ?2` (what the peers and most code
// write), with the limit written into the SQL (`LIMIT 21`), and with
// preparing the statement alone. SQLite plans a bare `LIMIT ?2` with the
// value bound, so binding it expires the statement and every run is
// prepared again. The statements run on a read-only connection inside one
// read transaction, so the figures are the statements' own; before timing,
// every variant must give the same rows (exit 1 if not).
//
//   bun bench/probes/bound_limit.ts [--rounds 7] [--iterations 20000] [--pets 100000]
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { boundLimit } from '../../src/db/bound_limit'
import { openDatabase } from '../../src/db/sqlite'
import { rowsForPage } from '../../src/pets/paging'
import { DEFAULT_LIMIT } from '../../src/pets/schema'
import { PET_PAGE } from '../../src/pets/sqlite_store'
import { spread, timeInProcess } from '../lib/rounds'
import { seedDatabase } from '../lib/seed'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    iterations: { type: 'string', default: '20000' },
    pets: { type: 'string', default: '100000' },
  },
})
const petCount = Number(values.pets)
const dir = mkdtempSync(join(tmpdir(), 'animal-store-bound-limit-'))
const file = join(dir, 'bench.sqlite')
await seedDatabase(file, petCount)
// The main connection keeps the file in WAL mode, as a server does; the reads run on one of their own.
const main = openDatabase(file)
const reader = new Database(file, { readonly: true, strict: true })
const rows = rowsForPage(DEFAULT_LIMIT)
// The service's statement with only its LIMIT written otherwise.
if (!PET_PAGE.includes(boundLimit('?2'))) throw new Error(`the page statement no longer ends ${boundLimit('?2')}`)
const page = (limit: string) => PET_PAGE.replace(boundLimit('?2'), limit)
const service = reader.prepare(PET_PAGE)
const bare = reader.prepare(page('LIMIT ?2'))
const literal = reader.prepare(page(`LIMIT ${rows}`))
const randomAfter = () => Math.floor(Math.random() * petCount)

try {
  reader.exec('BEGIN')
  for (let i = 0; i < 1000; i++) {
    const after = randomAfter()
    const [a, b, c] = [service.all(after, rows), bare.all(after, rows), literal.all(after)].map((r) =>
      JSON.stringify(r),
    )
    if (a !== b || a !== c) {
      console.error(`different rows after ${after}`)
      process.exit(1)
    }
  }
  const samples = await timeInProcess(
    {
      'LIMIT +?2 (the service)': () => service.all(randomAfter(), rows),
      'LIMIT ?2 (bare)': () => bare.all(randomAfter(), rows),
      [`LIMIT ${rows} (in the SQL)`]: () => literal.all(randomAfter()),
      'preparing the statement alone': () => reader.prepare(page('LIMIT ?2')).finalize(),
    },
    { rounds: Number(values.rounds), iterations: Number(values.iterations) },
  )
  console.log(
    `A page of ${DEFAULT_LIMIT} (${rows} rows read) of ${petCount} pets, µs per call, median [min–max] of ${values.rounds} rounds:`,
  )
  for (const [name, times] of Object.entries(samples)) console.log(`  ${name.padEnd(30)} ${spread(times)}`)
} finally {
  reader.exec('COMMIT')
  reader.close()
  main.close()
  rmSync(dir, { recursive: true, force: true })
}
