import autocannon from 'autocannon'
import type { RecordedAnswer } from '../servers/elysia_floor'
import type { LoadRequest, Scenario, ScenarioContext } from './scenarios'

/** What one timed run measured. */
export interface LoadResult {
  rps: number
  p50: number
  p99: number
  /** Connection errors and timeouts. */
  errors: number
  non2xx: number
  requests: number
  /** Answers that failed the scenario's check (on the service only). */
  wrong: number
  firstWrong?: string
}

/** Options of one run. */
export interface LoadOptions {
  url: string
  connections: number
  /** Seconds, or a number of requests with `amount`. */
  duration?: number
  amount?: number
  /** Count wrong answers (the service); the baseline runs the same checks without counting. */
  judge: boolean
}

// Bodies are checked in full on one answer in 32; status and headers on every one.
const FULL_CHECK_EVERY = 32

/** Drives `scenario` with autocannon and returns its figures. */
export async function runLoad(
  scenario: Scenario,
  context: ScenarioContext,
  options: LoadOptions,
  /** The scenario's requests, when several runs at once share them (instances sharing the contended pets). */
  shared: LoadRequest[] = scenario.requests(context),
): Promise<LoadResult> {
  let seen = 0
  let wrong = 0
  let firstWrong: string | undefined
  const requests: LoadRequest[] = shared.map((request) => ({
    ...request,
    onResponse: (status, body, noted, rawHeaders) => {
      request.onResponse?.(status, body, noted, rawHeaders)
      const headers: Record<string, string> = {}
      for (const name in rawHeaders) headers[name.toLowerCase()] = rawHeaders[name]!
      const problem = scenario.check({ status, body, headers, noted }, ++seen % FULL_CHECK_EVERY === 0, context)
      if (problem !== undefined && options.judge) {
        wrong++
        firstWrong ??= problem
      }
    },
  }))
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 10 }),
    requests: requests as autocannon.Request[],
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
    wrong,
    firstWrong,
  }
}

/** The first request of a scenario, sent once with fetch, recorded for the baseline to replay byte for byte. */
export async function recordAnswer(url: string, scenario: Scenario, context: ScenarioContext): Promise<RecordedAnswer> {
  let [request] = scenario.requests(context)
  if (!request) throw new Error(`${scenario.name} has no request`)
  if (request.setupRequest) request = request.setupRequest({ ...request }, {})
  const response = await fetch(url + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    // The baseline answers with the bytes as sent: a compressed body stays compressed.
    decompress: false,
  })
  const skip = new Set(['date', 'content-length', 'connection', 'keep-alive', 'transfer-encoding'])
  return {
    status: response.status,
    headers: [...response.headers].filter(([name]) => !skip.has(name)),
    body: Buffer.from(await response.arrayBuffer()).toString('base64'),
  }
}

/** Seconds a timed run may take beyond its own length: starting its generator, reading the servers' CPU. */
const RUN_SLACK_SECONDS = 2

/** How long `runs` timed runs of `seconds` each take at most, one after another: what a ban must outlast. */
export function timedRunsMs(runs: number, seconds: number): number {
  return runs * (seconds + RUN_SLACK_SECONDS) * 1000
}

/** How long the 429 path's ban must last before its rounds: the answer recorded, the references started. */
const RECORDING_MS = 60_000

/**
 * The service's answer to `scenario` for the references to replay (`recordAnswer`), checked
 * (`checkRecorded`); for the 429 path, with its Free key banned first, and `keepBanned` to pass to
 * measureSideBySide as `ahead`, which bans it again before any round its ban would not outlast.
 */
export async function recordForReferences(
  url: string,
  scenario: Scenario,
  context: ScenarioContext,
): Promise<{ recorded: RecordedAnswer; keepBanned?: (ms: number) => Promise<void> }> {
  const keepBanned =
    scenario.name === '429 path' ? (ms: number) => banFreeKeyFor(url, context.keys.free, ms) : undefined
  await keepBanned?.(RECORDING_MS)
  const recorded = await recordAnswer(url, scenario, context)
  checkRecorded(scenario, recorded, context)
  return { recorded, keepBanned }
}

/**
 * The answer `recordAnswer` gave, as the scenario's check reads answers: an answer the scenario would count
 * wrong, which the references would then replay as if it were the service's, is an error. Status and
 * headers only (the check's light form): a compressed body stays compressed here.
 */
export function checkRecorded(scenario: Scenario, recorded: RecordedAnswer, context: ScenarioContext): void {
  const answer = {
    status: recorded.status,
    body: Buffer.from(recorded.body, 'base64').toString(),
    headers: Object.fromEntries(recorded.headers),
    noted: {},
  }
  const problem = scenario.check(answer, false, context)
  if (problem !== undefined) throw new Error(`${scenario.name}: the service's answer to replay is wrong (${problem})`)
}

/** Drives the Free key over its limit until the service bans it, so every later request of it takes the 429 path. */
async function exhaustFreeKey(url: string, key: string): Promise<void> {
  for (let i = 0; i < 130; i++)
    await (await fetch(`${url}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer()
}

/**
 * Has the service at `url` hold the Free key banned for at least the next `ms`. A ban lasts 15 minutes and the
 * refusals it answers do not renew it, so a 429 path measured past its end would meet a minute of 200s (and
 * an answer recorded after it, a 200 for the references to replay). A key not banned is banned now; a ban
 * that ends sooner is waited out (until then every request of the key is refused, and bans nothing), then
 * made again. Asks the service itself when its ban ends (`GET /v1/rate_limit`, which counts nothing).
 */
export async function banFreeKeyFor(
  url: string,
  key: string,
  ms: number,
  clock: BenchClock = REAL_CLOCK,
): Promise<void> {
  const end = await banEnd(url, key)
  if (end !== undefined && end - clock.now() > ms) return
  // Unix seconds: one more second past the end it names.
  if (end !== undefined) await clock.sleep(Math.max(0, end - clock.now()) + 1000)
  await exhaustFreeKey(url, key)
  const renewed = await banEnd(url, key)
  if (renewed === undefined || renewed - clock.now() <= ms)
    throw new Error(
      `the Free key is not banned for the next ${Math.round(ms / 1000)} s after driving it over its limit`,
    )
}

/** The time the service is on, and a way to wait: the real ones but in a test, whose service runs on a clock of its own. */
export interface BenchClock {
  now(): number
  sleep(ms: number): Promise<void>
}

const REAL_CLOCK: BenchClock = { now: Date.now, sleep: (ms) => Bun.sleep(ms) }

/** When the service ends its ban of `key` (milliseconds since the epoch), or undefined when the key is not banned. */
async function banEnd(url: string, key: string): Promise<number | undefined> {
  const response = await fetch(`${url}/v1/rate_limit`, { headers: { authorization: `Bearer ${key}` } })
  if (!response.ok) throw new Error(`GET /v1/rate_limit answered ${response.status}`)
  const { bannedUntil } = (await response.json()) as { bannedUntil: number | null }
  return bannedUntil === null ? undefined : bannedUntil * 1000
}
