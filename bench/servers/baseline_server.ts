// The baseline: a raw Bun.serve that answers every request with the exact
// bytes the service gave for the scenario (same status, same headers, same
// body), with no framework and no database. Prints its port on stdout.
//
// With BASELINE_PETS naming a copy of the bench's pets, it does the store's
// part of the work and nothing else, with the same headers: a GET's page is
// read from SQLite with the service's statement (`limit`, `status`, `after`)
// and sent through JSON.stringify. It reads the page's rows only, where the
// service reads one more to know whether a next page follows, so it is, if
// anything, a row cheaper. A POST's pet is inserted, and a PATCH's fields
// written to its pet with one UPDATE ... RETURNING (where the service reads
// the pet first, to decide and to tag it), the writes of one event-loop turn
// in one transaction with `synchronous = FULL` (the service's group commit
// and default durability), each answered once committed. That is the least a
// Bun server on bun:sqlite spends on a page SQLite reads every time, on a
// durable create or on a durable update (`--peers` and `--floors` measure the
// service as a multiple of it; bench/probes/floor_breakdown.ts runs it too).
//
//   [BASELINE_PETS=pets.sqlite] bun bench/servers/baseline_server.ts RESPONSE.json
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { PET_COLUMNS, PET_PAGE, PET_PAGE_BY_STATUS } from '../../src/pets/sqlite_store'

const file = process.argv[2]
if (!file) throw new Error('usage: [BASELINE_PETS=pets.sqlite] bun bench/servers/baseline_server.ts RESPONSE.json')
const recorded = JSON.parse(readFileSync(file, 'utf8')) as { status: number; headers: [string, string][]; body: string }
const body = Buffer.from(recorded.body, 'base64')
const init = { status: recorded.status, headers: recorded.headers }
const pets = process.env.BASELINE_PETS
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  reusePort: false,
  fetch: pets === undefined ? () => new Response(body, init) : storeWork(new Database(pets, { strict: true })),
})
console.log(`baseline listening on ${server.port}`)

/** Answers a GET with its page read from `db`, and a POST or a PATCH once its write is committed in the turn's transaction. */
function storeWork(db: Database): (request: Request) => Response | Promise<Response> {
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  const page = db.prepare(PET_PAGE)
  const pageByStatus = db.prepare(PET_PAGE_BY_STATUS)
  const insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3) RETURNING ${PET_COLUMNS}`)
  const update = db.prepare(
    `UPDATE pets SET name = coalesce(?2, name), category_id = coalesce(?3, category_id), status = coalesce(?4, status) WHERE id = ?1 RETURNING ${PET_COLUMNS}`,
  )
  type Fields = { name?: string; categoryId?: number; status?: string }
  type Pending = { write: () => unknown; resolve: (row: unknown) => void }
  let batch: Pending[] = []
  const commit = db.transaction((pending: Pending[]) => pending.map(({ write }) => write()))
  const flush = () => {
    const pending = batch
    batch = []
    const rows = commit(pending)
    for (let i = 0; i < pending.length; i++) pending[i]!.resolve(rows[i])
  }
  const committed = (write: () => unknown) =>
    new Promise<unknown>((resolve) => {
      if (batch.push({ write, resolve }) === 1) setImmediate(flush)
    })
  const answer = (row: unknown) => new Response(JSON.stringify(row), init)
  return (request) => {
    if (request.method === 'POST')
      return request
        .json()
        .then((pet) => {
          const { name, categoryId, status } = pet as Fields
          return committed(() => insert.get(name ?? null, categoryId ?? null, status ?? 'available'))
        })
        .then(answer)
    if (request.method === 'PATCH') {
      const id = Number(new URL(request.url).pathname.split('/').at(-1))
      return request
        .json()
        .then((fields) => {
          const { name, categoryId, status } = fields as Fields
          return committed(() => update.get(id, name ?? null, categoryId ?? null, status ?? null))
        })
        .then(answer)
    }
    const query = new URL(request.url).searchParams
    const limit = Number(query.get('limit') ?? 20)
    const after = Number(query.get('after') ?? 0)
    const status = query.get('status')
    const rows = status === null ? page.all(after, limit) : pageByStatus.all(status, after, limit)
    return answer(rows)
  }
}
