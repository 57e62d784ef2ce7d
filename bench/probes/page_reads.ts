// What a page read costs on PostgreSQL, read by a statement of its own or with
// the other reads of its turn in one statement (src/pets/postgres_page_reads.ts):
// 50 chains each reading a random page of 20 (21 rows) after another, the CPU of
// this process (Bun's client) and of PostgreSQL's processes per page, interleaved
// rounds. Starts a throwaway PostgreSQL (.ci/services) on CPU 1, seeds it with
// 100,000 pets (or --pets) and stops it after. Run it on CPU 0, apart from PostgreSQL:
//
//   taskset -c 0 bun bench/probes/page_reads.ts [--rounds 7] [--pages 20000] [--pets 100000]

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { SQL } from 'bun'
import { PostgresPageReads } from '../../src/pets/postgres_page_reads'
import { type PetRow, toPet } from '../../src/pets/postgres_rows'
import { spread } from '../lib/rounds'
import { seedPostgres } from '../lib/seed'
import { postgresCpu, postgresCpuSince, startSharedServices, stopSharedServices } from '../lib/shared_services'

const CHAINS = 50
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    pages: { type: 'string', default: '20000' },
    pets: { type: 'string', default: '100000' },
  },
})
const PETS = Number(values.pets)
const servicesDir = mkdtempSync(join(tmpdir(), 'page-reads-services-'))
let sql: SQL | undefined
try {
  const { url } = await seedPostgres(startSharedServices(servicesDir, 1).DATABASE_URL!, 'page_reads', PETS)
  sql = new SQL(url, { max: 10 })
  const grouped = new PostgresPageReads(sql)
  const reads: Record<string, (after: number) => Promise<unknown[]>> = {
    'a statement each': async (after) => {
      const rows: PetRow[] =
        await sql!`SELECT id::float8 AS id, name, category_id::float8 AS "categoryId", status FROM pets
          WHERE id > ${after} ORDER BY pets.id LIMIT ${21}`
      return rows.map(toPet)
    },
    'one statement a turn': (after) => grouped.read(after, 20),
  }
  const figures = Object.fromEntries(
    Object.keys(reads).map((name) => [name, { client: [] as number[], postgres: [] as number[] }]),
  )
  const names = Object.keys(reads)
  for (const name of names) await measure(reads[name]!, 3000)
  for (let round = 0; round < Number(values.rounds); round++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!
      const { client, postgres } = await measure(reads[name]!, Number(values.pages))
      figures[name]!.client.push(client)
      figures[name]!.postgres.push(postgres)
    }
  console.log(`CPU µs per page of 20, median [min–max] of ${values.rounds} rounds, ${CHAINS} reads at once:`)
  for (const name of names)
    console.log(
      `  ${name.padEnd(22)} Bun ${spread(figures[name]!.client, 1)}   PostgreSQL ${spread(figures[name]!.postgres, 1)}`,
    )
} finally {
  await sql?.close()
  stopSharedServices(servicesDir)
  rmSync(servicesDir, { recursive: true, force: true })
}

/** `pages` random reads by `CHAINS` chains; this process's and PostgreSQL's CPU µs per page. */
async function measure(read: (after: number) => Promise<unknown[]>, pages: number) {
  let left = pages
  const postgresBefore = postgresCpu(servicesDir)
  const start = process.cpuUsage()
  await Promise.all(
    Array.from({ length: CHAINS }, async () => {
      while (left-- > 0) {
        const page = await read(Math.floor(Math.random() * (PETS - 21)))
        if (page.length !== 21) throw new Error(`a page of ${page.length} rows, not 21`)
      }
    }),
  )
  const used = process.cpuUsage(start)
  return {
    client: (used.user + used.system) / pages,
    postgres: (postgresCpuSince(servicesDir, postgresBefore) * 1e6) / pages,
  }
}
