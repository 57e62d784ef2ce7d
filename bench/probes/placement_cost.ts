// How an order reserves its pet exactly once on PostgreSQL, measured two ways:
// - "conditional" (what PostgresOrderStore ships): one UPDATE ... WHERE status =
//   'available' RETURNING takes the pet's row lock and decides in one statement,
//   then the order is inserted;
// - "locked": SELECT ... FOR UPDATE reads the pet under its row lock, the code
//   decides, then UPDATE and INSERT: one statement more per placement.
// Both run in one transaction per placement, cancelled next in another (as the
// store's updateOrder does), by --clients concurrent clients, either each on
// pets of its own (no contention) or all on the same 8 pets (contention).
// Rounds alternate the two ways; the figure is the median of the per-round
// ratios locked / conditional of the time per placement attempt, with their
// range. Every round ends with the exactly-once check: no pet with two placed
// orders, each placed order's pet pending.
//
//   bun bench/probes/placement_cost.ts [--postgres postgres://...] [--clients 16] [--attempts 200] [--rounds 5]
import { parseArgs } from 'node:util'
import type { SQL } from 'bun'
import { openPostgres } from '../../src/db/postgres'
import { PostgresOrderStore } from '../../src/orders/postgres_store'
import { median, spread } from '../lib/rounds'

const { values } = parseArgs({
  options: {
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL },
    clients: { type: 'string', default: '16' },
    attempts: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
  },
})
if (!values.postgres) throw new Error('--postgres (or TEST_DATABASE_URL) must name a PostgreSQL server')
const clients = Number(values.clients)
const attempts = Number(values.attempts)
const rounds = Number(values.rounds)
const OWNER = 1
const CONTENDED = 8

type Way = 'conditional' | 'locked'
type Placement = (petId: number, now: number) => Promise<number | undefined>

const schema = `placement_cost_${process.pid}`
const sql = await openPostgres(values.postgres, { schema, max: 10 })
const store = new PostgresOrderStore(sql)

/** The store's own placement: the conditional update. */
const conditional: Placement = async (petId, now) => {
  const outcome = await store.place(petId, OWNER, now)
  return outcome.kind === 'placed' ? outcome.order.id : undefined
}

/** The alternative: read the pet under its row lock, decide in code, then write. */
const locked: Placement = (petId, now) =>
  sql.begin(async (tx: SQL) => {
    const [pet]: { status: string }[] = await tx`SELECT status FROM pets WHERE id = ${petId} FOR UPDATE`
    if (pet?.status !== 'available') return undefined
    await tx`UPDATE pets SET status = 'pending' WHERE id = ${petId}`
    const [order]: { id: string }[] = await tx`
      INSERT INTO orders (pet_id, owner_id, status, placed_at, updated_at)
      VALUES (${petId}, ${OWNER}, 'placed', ${now}, ${now}) RETURNING id`
    return Number(order!.id)
  })

/** Fresh available pets. */
async function makePets(count: number): Promise<number[]> {
  const rows: { id: string }[] = await sql`
    INSERT INTO pets (name, category_id, status)
    SELECT 'probe ' || i, 1, 'available' FROM generate_series(1, ${count}::int) AS i RETURNING id`
  return rows.map((row) => Number(row.id))
}

/** Microseconds per placement attempt: every client tries `attempts` times, cancelling what it placed. */
async function run(place: Placement, contended: boolean): Promise<{ micros: number; placed: number }> {
  const shared = contended ? await makePets(CONTENDED) : []
  const own = contended ? [] : await makePets(clients)
  let placed = 0
  const client = async (n: number) => {
    for (let i = 0; i < attempts; i++) {
      const petId = contended ? shared[(n + i) % CONTENDED]! : own[n]!
      const order = await place(petId, Date.now())
      if (order === undefined) continue
      placed++
      await store.update(order, OWNER, 'cancelled', Date.now())
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: clients }, (_, n) => client(n)))
  const micros = ((performance.now() - start) * 1000) / (clients * attempts)
  await expectExactlyOnce()
  return { micros, placed }
}

/** No pet with two placed orders; every placed order's pet pending. */
async function expectExactlyOnce(): Promise<void> {
  const [twice] = await sql`SELECT count(*)::int AS n FROM (
    SELECT pet_id FROM orders WHERE status = 'placed' GROUP BY pet_id HAVING count(*) > 1) AS t`
  const [unreserved] = await sql`SELECT count(*)::int AS n FROM orders o JOIN pets p ON p.id = o.pet_id
    WHERE o.status = 'placed' AND p.status <> 'pending'`
  if (twice.n !== 0 || unreserved.n !== 0)
    throw new Error(
      `exactly once broken: ${twice.n} pets placed twice, ${unreserved.n} placed orders on pets not pending`,
    )
}

try {
  for (const contended of [false, true]) {
    const ratios: number[] = []
    const times: Record<Way, number[]> = { conditional: [], locked: [] }
    const placements: Record<Way, number[]> = { conditional: [], locked: [] }
    for (let round = 0; round < rounds; round++) {
      // Alternating which goes first, so a drift in the machine weighs on both.
      const order: Way[] = round % 2 === 0 ? ['conditional', 'locked'] : ['locked', 'conditional']
      const micros: Partial<Record<Way, number>> = {}
      for (const way of order) {
        const result = await run(way === 'conditional' ? conditional : locked, contended)
        micros[way] = result.micros
        times[way].push(result.micros)
        placements[way].push(result.placed)
      }
      ratios.push(micros.locked! / micros.conditional!)
    }
    console.log(
      `${contended ? `contended (${clients} clients, ${CONTENDED} pets)` : `uncontended (${clients} clients, a pet each)`}: ` +
        `conditional ${median(times.conditional).toFixed(0)} µs, locked ${median(times.locked).toFixed(0)} µs per attempt; ` +
        `locked / conditional ${spread(ratios)} over ${rounds} rounds; ` +
        `placed per round: conditional ${median(placements.conditional)}, locked ${median(placements.locked)}; exactly once held`,
    )
  }
} finally {
  await sql`DROP SCHEMA ${sql(schema)} CASCADE`
  await sql.close()
}
