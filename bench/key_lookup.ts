// What checking keys on every request costs, as a share of a whole in-process
// list request. The key store looks at `PRAGMA data_version` on each lookup so
// that CLI revocations and plan changes reach a running server on the next
// request; this bench shows what that freshness costs.
//
//   bun bench/key_lookup.ts [--rounds 5] [--iterations 20000]
import { parseArgs } from 'node:util'
import { createApp } from '../src/app'
import { openDatabase } from '../src/db/open'
import { authenticate } from '../src/keys/authenticate'
import { hashApiKey } from '../src/keys/api_key'
import { issueKey } from '../src/keys/issue'
import { PLAN_LIMITS } from '../src/keys/plans'
import { SqliteKeyStore } from '../src/keys/store'
import { createLogger } from '../src/log'
import { SqlitePetStore } from '../src/pets/store'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, iterations: { type: 'string', default: '20000' } } })
const rounds = Number(values.rounds)
const iterations = Number(values.iterations)

const db = openDatabase(':memory:')
const keys = new SqliteKeyStore(db)
const pets = new SqlitePetStore(db)
for (let i = 0; i < 1000; i++) pets.create({ name: `pet ${i}`, categoryId: 1 + (i % 7) })
const { secret } = await issueKey(keys, { name: 'bench', plan: 'free', ...PLAN_LIMITS.free })
const header = `Bearer ${secret}`
const hash = hashApiKey(secret)
const snapshot = new Map([[hash, keys.findActive(hash)]])
const app = createApp({ pets, keys, logger: createLogger('silent') })
const request = () => new Request('http://localhost/v1/pets?limit=20', { headers: { authorization: header } })

async function time(run: () => unknown | Promise<unknown>): Promise<number> {
  const start = Bun.nanoseconds()
  for (let i = 0; i < iterations; i++) await run()
  return (Bun.nanoseconds() - start) / iterations
}

const cases: Record<string, () => unknown> = {
  'whole request (app.handle, list of 20)': () => app.handle(request()),
  'authenticate (parse, hash, data_version, map)': () => authenticate(header, keys),
  'hash only': () => hashApiKey(secret),
  'map lookup only (no freshness check)': () => snapshot.get(hash),
}
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]))
// Interleaved rounds, median per case: a noisy machine shifts every case alike.
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(cases)) samples[name]!.push(await time(run))
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const whole = median(samples['whole request (app.handle, list of 20)']!)
console.log(`rounds ${rounds} x ${iterations} iterations; share of one whole in-process request:`)
for (const name of Object.keys(cases)) console.log(`  ${name.padEnd(48)} ${((median(samples[name]!) / whole) * 100).toFixed(1).padStart(6)} %`)
