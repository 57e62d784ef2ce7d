// The baseline: a raw Bun.serve that answers every request with the exact
// bytes the service gave for the scenario (same status, same headers, same
// body), with no framework and no database. Prints its port on stdout.
//
// With BASELINE_PETS naming a copy of the bench's pets, it does the store's
// part of the work and nothing else, with the same headers: a GET's page is
// read from SQLite with the service's statement (`limit`, `status`, `after`)
// and sent through JSON.stringify. It reads the page's rows only, where the
// service reads one more to know whether a next page follows, so it is, if
// anything, a row cheaper. A POST's pet is inserted, the inserts of one
// event-loop turn in one transaction with `synchronous = FULL` (the service's
// group commit and default durability), and answered once committed. That is
// the least a Bun server on bun:sqlite spends on a page SQLite reads every
// time or on a durable create (bench/probes/floor_breakdown.ts runs it on the cold
// list and create).
//
//   [BASELINE_PETS=pets.sqlite] bun bench/servers/baseline_server.ts RESPONSE.json
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'

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

/** Answers a GET with its page read from `db`, and a POST once its pet is committed in the turn's transaction. */
function storeWork(db: Database): (request: Request) => Response | Promise<Response> {
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  const columns = 'id, name, category_id AS categoryId, status'
  const page = db.prepare(`SELECT ${columns} FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2`)
  const pageByStatus = db.prepare(`SELECT ${columns} FROM pets WHERE status = ?1 AND id > ?2 ORDER BY id LIMIT ?3`)
  const insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3) RETURNING ${columns}`)
  type Pending = { pet: { name: string; categoryId: number; status?: string }; resolve: (row: unknown) => void }
  let batch: Pending[] = []
  const commit = db.transaction((pending: Pending[]) =>
    pending.map(({ pet }) => insert.get(pet.name, pet.categoryId, pet.status ?? 'available')),
  )
  const flush = () => {
    const pending = batch
    batch = []
    const rows = commit(pending)
    for (let i = 0; i < pending.length; i++) pending[i]!.resolve(rows[i])
  }
  const created = (pet: Pending['pet']) =>
    new Promise<unknown>((resolve) => {
      if (batch.push({ pet, resolve }) === 1) setImmediate(flush)
    })
  return (request) => {
    if (request.method === 'POST')
      return request
        .json()
        .then((pet) => created(pet as Pending['pet']))
        .then((row) => new Response(JSON.stringify(row), init))
    const query = new URL(request.url).searchParams
    const limit = Number(query.get('limit') ?? 20)
    const after = Number(query.get('after') ?? 0)
    const status = query.get('status')
    const rows = status === null ? page.all(after, limit) : pageByStatus.all(status, after, limit)
    return new Response(JSON.stringify(rows), init)
  }
}
