// Where a request's microseconds go, in process, stage by stage: the whole
// request through the service's app (`app.handle`), the Elysia floor (the
// same answer through Elysia with no work, bench/servers/elysia_floor.ts) and the
// floor with the list's query validation, then each stage of the service's
// own work alone in a loop: the key check, the limiter, the rate-limit
// headers, the page store, the page's body and ETag, the Response with the
// answer's headers, and the request log line. Bun's HTTP is not in process:
// `npm run bench -- --peers` gives it (raw Bun against the floor).
//
// Each case runs `--iterations` times per round, the cases interleaved
// round by round (bench/lib/rounds.ts); the figure is the median µs per call
// with the rounds' min–max, and its share of the whole request.
//
//   bun bench/probes/stage_costs.ts [--rounds 5] [--iterations 20000] [--pets 20000]

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createApp } from '../../src/app'
import { authenticate } from '../../src/auth/authenticate'
import { KnownCredentials } from '../../src/auth/known_credentials'
import { sqliteStores } from '../../src/backends'
import { openDatabase } from '../../src/db/sqlite'
import { browserSafety } from '../../src/http/browser_safety'
import { Callers } from '../../src/http/callers'
import { clientAddress } from '../../src/http/client_address'
import { entityTag } from '../../src/http/conditional'
import { requestLog } from '../../src/http/request_log'
import { createLogger } from '../../src/log'
import type { PetListQuery, PetPage } from '../../src/pets/store'
import { applyRateDecision } from '../../src/ratelimit/apply_decision'
import type { RateDecision } from '../../src/ratelimit/decision'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { keySubject } from '../../src/ratelimit/subject'
import { median, spread, timeInProcess } from '../lib/rounds'
import { seedDatabase } from '../lib/seed'
import { floorApp, type RecordedAnswer } from '../servers/elysia_floor'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '20000' },
    pets: { type: 'string', default: '20000' },
  },
})
const rounds = Number(values.rounds)
const iterations = Number(values.iterations)
const petCount = Number(values.pets)

const dir = mkdtempSync(join(tmpdir(), 'animal-store-stages-'))
const file = join(dir, 'bench.sqlite')
const benchKeys = await seedDatabase(file, petCount)
// As backends.ts composes them for a server on SQLite: one watcher for the key map and the page cache.
const db = openDatabase(file)
const { pets, orders, keys } = sqliteStores(db)
// As the bench's server runs: no request log lines (LOG_LEVEL=warn).
const app = createApp({ pets, orders, keys, logger: createLogger('warn', () => {}), socketAddress: () => '127.0.0.1' })

const randomAfter = () => Math.floor(Math.random() * (petCount - 20))
interface Scenario {
  name: string
  key: string
  query: () => PetListQuery
}
const scenarios: Scenario[] = [
  { name: 'hot list', key: benchKeys.unlimited, query: () => ({ limit: 20 }) },
  { name: 'cold list', key: benchKeys.unlimited, query: () => ({ limit: 20, after: randomAfter() }) },
  { name: '429 path', key: benchKeys.free, query: () => ({ limit: 20 }) },
]
const pathOf = ({ limit, after }: PetListQuery) =>
  `/v1/pets?limit=${limit}${after === undefined ? '' : `&after=${after}`}`

const requestFor = (scenario: Scenario) => () =>
  new Request(`http://localhost${pathOf(scenario.query())}`, { headers: { authorization: `Bearer ${scenario.key}` } })
// The Free key driven over its limit until it is banned, as the 429 scenario has it.
for (let i = 0; i < 130; i++) await app.handle(requestFor(scenarios[2]!)())
const WHOLE = 'whole request (app.handle)'

async function record(scenario: Scenario): Promise<RecordedAnswer> {
  const response = await app.handle(requestFor(scenario)())
  return {
    status: response.status,
    headers: [...response.headers].filter(([name]) => name !== 'content-length'),
    body: Buffer.from(await response.arrayBuffer()).toString('base64'),
  }
}

/** The cases of one scenario: the whole request, the floors, and each of the service's own stages alone. */
async function casesOf(scenario: Scenario): Promise<Record<string, () => unknown>> {
  const recorded = await record(scenario)
  const body = Buffer.from(recorded.body, 'base64').toString('utf8')
  const answerHeaders = Object.fromEntries(recorded.headers)
  const request = requestFor(scenario)
  const authorization = `Bearer ${scenario.key}`
  const known = new KnownCredentials()
  const key = authenticate(authorization, keys, known)
  if (key === undefined) throw new Error(`${scenario.name}: the key does not authenticate`)
  // A limiter of its own, in the state the scenario's key is in: counting, or banned.
  const limiter = new MemoryRateLimiter()
  const now = Date.now()
  let decision = limiter.consume(keySubject(key), key, now) as RateDecision
  if (recorded.status === 429)
    for (let i = 0; i < 130; i++) decision = limiter.consume(keySubject(key), key, now) as RateDecision
  const floor = floorApp(recorded)
  const floorWithQuery = floorApp(recorded, new Set(['query']))
  const callers = new Callers()
  // The steps of the wrap around every response (http/every_response.ts), each on an answer without its headers.
  const safetyStep = browserSafety({ https: false })
  // The address each line names, as the app reads it (a socket peer, TRUST_PROXY off).
  const clientOf = (request: Request) => clientAddress(request, '127.0.0.1', false)
  const idStep = requestLog({ logger: createLogger('warn', () => {}), callers, clientOf })
  const logStep = requestLog({ logger: createLogger('info', () => {}), callers, clientOf })
  const bare = Object.fromEntries(
    recorded.headers.filter(([name]) => !['x-request-id', 'x-content-type-options', 'cache-control'].includes(name)),
  )
  const answer = () => new Response(body, { status: recorded.status, headers: bare })
  const logged = request()
  const cases: Record<string, () => unknown> = {
    [WHOLE]: () => app.handle(request()),
    'Elysia floor: the same answer, no work': () => floor.handle(request()),
    'floor + the list query validated': () => floorWithQuery.handle(request()),
    'new Request (in the three above)': request,
    'key check (authenticate, header seen before)': () => authenticate(authorization, keys, known),
    'limiter (consume)': () => limiter.consume(keySubject(key), key, now),
    'rate-limit headers (applyRateDecision)': () => applyRateDecision({ headers: {} }, decision),
  }
  if (recorded.status === 200) {
    cases[`page store (${scenario.name === 'hot list' ? 'cache hit' : 'SQLite read'})`] = () =>
      pets.list(scenario.query())
    if (scenario.name !== 'hot list') {
      const page = pets.list(scenario.query()) as PetPage
      cases['page body and ETag (JSON.stringify, hash)'] = () => entityTag(JSON.stringify(page.pets))
    }
  }
  cases[`Response with the answer's ${recorded.headers.length} headers`] = () =>
    new Response(body, { status: recorded.status, headers: answerHeaders })
  cases['Response with no headers'] = () => new Response(body, { status: recorded.status })
  cases["that Response without the wrap's three headers"] = answer
  // The wrap's steps write their headers into the answer's record before the Response is made (http/every_response.ts).
  const withStepHeaders = () => {
    const headers: Record<string, string | number> = { ...bare }
    safetyStep.headers?.(headers, logged, undefined)
    idStep.headers?.(headers, logged, idStep.start(logged))
    return new Response(body, { status: recorded.status, headers: headers as Record<string, string> })
  }
  cases["+ the wrap's headers written before (nosniff, Cache-Control, X-Request-Id)"] = withStepHeaders
  cases['+ request-log line (LOG_LEVEL=info)'] = () => logStep.finish?.(logged, answer(), logStep.start(logged))
  return cases
}

console.log(`${petCount.toLocaleString('en')} pets, ${rounds} interleaved rounds of ${iterations} calls per case`)
for (const scenario of scenarios) {
  const cases = await casesOf(scenario)
  const samples = await timeInProcess(cases, { rounds, iterations })
  const whole = median(samples[WHOLE]!)
  console.log(
    `\n${scenario.name}\n| stage | µs per call, median [min–max] | share of the whole request |\n|---|---|---|`,
  )
  for (const [name, xs] of Object.entries(samples)) {
    console.log(`| ${name} | ${spread(xs)} | ${((median(xs) / whole) * 100).toFixed(0)} % |`)
  }
}
db.close()
rmSync(dir, { recursive: true, force: true })
