// The bench suite: seeds a fresh database, starts the service and a raw
// baseline on CPU 0, drives both with autocannon from CPU 1, A B A B, and
// prints req/s, latency, errors and the ratio to the baseline per scenario.
// Every process it starts is stopped by PID; it only talks to 127.0.0.1.
//
//   bun bench/run.ts --help
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { comparePeers } from './lib/compare_peers'
import { banFreeKeyFor, type LoadResult, recordAnswer, runLoad, timedRunsMs } from './lib/load'
import { canPin, pinSelf, rssOf } from './lib/processes'
import { type BenchReport, type ScenarioResult, svgChart, table } from './lib/report'
import { median } from './lib/rounds'
import { compareScaleOut, SCALE_OUT_SCENARIOS } from './lib/scale_out'
import { SCENARIOS, type Scenario, type ScenarioContext } from './lib/scenarios'
import { type BenchKeys, seedDatabase, seedPostgres } from './lib/seed'
import { BenchServers, type Running } from './lib/servers'
import { startSharedServices, stopSharedServices } from './lib/shared_services'
import { hasWrk, runWrk, wrkScript } from './lib/wrk'

const HELP = `Usage: bun bench/run.ts [options]      (npm run bench -- [options])

  --pets N            pets seeded for the scenarios (default 100000)
  --duration S        seconds per timed run (default 10; 5 with --peers, --floors or --scale-out)
  --rounds N          baseline/service rounds per scenario; medians are reported (default 3; 5 with --peers,
                      --floors or --scale-out)
  --connections N     autocannon connections (default 50)
  --only A,B          run only these scenarios (names as printed, e.g. "hot list,create")
  --scale             also: the list scenarios and the inventory at 1,000, 100,000 and 1,000,000 pets,
                      and the service's RSS after 1,000,000 distinct client addresses
  --store S           sqlite (default) or postgres: the service's DATABASE_URL
  --limiter L         memory (default) or redis: the service's REDIS_URL
  --instances N       service processes sharing the load (default 1; more need
                      --store postgres --limiter redis); connections are split evenly
  --skip-wrk          do not also measure with wrk (it is used when installed)
  --peers             measure the scenarios the peers implement (bench/servers/peers: Elysia, Hono, Fastify
                      on Node) and those with a reference, beside raw Bun, the Elysia floor
                      (bench/servers/elysia_floor.ts: the service's bytes through Elysia with no work), raw
                      Bun doing only the scenario's store work (a page read, a create or an update
                      committed) and the service, interleaved, with wrk and autocannon, and the servers'
                      CPU time per request, the service's as a multiple of its reference's; needs wrk
                      (apt-get install wrk); the peers' packages are installed on first use
                      (npm ci --prefix bench/servers/peers)
  --floors            the same run without the peers: the service against its references only
  --scale-out         the service on SQLite + memory, on PostgreSQL + Redis (one instance) and on three
                      instances sharing them, interleaved, with wrk and autocannon: req/s and each process's
                      CPU per request (the service on CPU 0; PostgreSQL, Redis and the load on CPU 1), the
                      service's as a multiple of SQLite + memory's, and in the scenarios with targets also of
                      three SQLite + memory processes (like for like with three instances); scenarios:
                      ${SCALE_OUT_SCENARIOS.join(', ')} unless --only names others; needs wrk
  --json FILE         write the results as JSON
  --svg FILE          write a chart of req/s against the baseline
  --help              this text

Scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}.
The service runs with LOG_LEVEL=warn (no request lines) and TRUST_PROXY=on.
With postgres or redis, throwaway servers are started (.ci/services) on CPU 0 with the
service, so every server-side process shares the one CPU the baseline gets.`

const { values } = parseArgs({
  options: {
    pets: { type: 'string', default: '100000' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    scale: { type: 'boolean', default: false },
    store: { type: 'string', default: 'sqlite' },
    limiter: { type: 'string', default: 'memory' },
    instances: { type: 'string', default: '1' },
    'skip-wrk': { type: 'boolean', default: false },
    peers: { type: 'boolean', default: false },
    floors: { type: 'boolean', default: false },
    'scale-out': { type: 'boolean', default: false },
    json: { type: 'string' },
    svg: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})
if (values.help) {
  console.log(HELP)
  process.exit(0)
}

const store = values.store
const limiterKind = values.limiter
const instances = Number(values.instances)
if (store !== 'sqlite' && store !== 'postgres') usage(`--store must be sqlite or postgres, got "${store}"`)
if (limiterKind !== 'memory' && limiterKind !== 'redis')
  usage(`--limiter must be memory or redis, got "${limiterKind}"`)
if (!(Number.isInteger(instances) && instances >= 1)) usage('--instances must be a positive integer')
if (instances > 1 && (store !== 'postgres' || limiterKind !== 'redis'))
  usage('--instances above 1 needs --store postgres --limiter redis')
if (values.scale && (store !== 'sqlite' || limiterKind !== 'memory'))
  usage('--scale measures the default SQLite + memory service only')
/** `--peers`, or `--floors` (the same side-by-side run without the peers). */
const sideBySide = values.peers || values.floors || values['scale-out']
const sideBySideFlag = values.peers ? '--peers' : values.floors ? '--floors' : '--scale-out'
if ([values.peers, values.floors, values['scale-out']].filter(Boolean).length > 1)
  usage('--peers, --floors and --scale-out are runs of their own: give one of them')
if (sideBySide && (store !== 'sqlite' || limiterKind !== 'memory' || instances !== 1 || values.scale))
  usage(`${sideBySideFlag} chooses the stores and instances itself: leave out --store, --limiter, --instances, --scale`)
if (sideBySide && (!hasWrk || values['skip-wrk']))
  usage(`${sideBySideFlag} measures with wrk: install it (Debian: apt-get install wrk) and leave out --skip-wrk`)
const mode = `${store} + ${limiterKind}, ${instances} instance${instances === 1 ? '' : 's'}`

function usage(message: string): never {
  console.error(`${message}\n\n${HELP}`)
  process.exit(2)
}

const pets = Number(values.pets)
const duration = Number(values.duration ?? (sideBySide ? 5 : 10))
const rounds = Number(values.rounds ?? (sideBySide ? 5 : 3))
const connections = Number(values.connections)
const only = values.only?.split(',').map((name) => name.trim())
const useWrk = hasWrk && !values['skip-wrk']
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'animal-store-bench-'))

const servers = new BenchServers(ROOT, work)

pinSelf()
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Bun ${Bun.version}`
console.error(
  `bench: ${machine}; ${canPin ? 'service and baseline pinned to CPU 0, load generators to CPU 1' : 'NOT pinned (no taskset or one CPU)'}`,
)

if (sideBySide) {
  // The runs of their own: --scale-out, or --peers / --floors.
  const run = {
    work,
    servers,
    pets,
    rounds,
    duration,
    connections,
    only,
    machine,
    pinned: canPin,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
    json: values.json,
    svg: values.svg,
  }
  try {
    process.exitCode = values['scale-out']
      ? await compareScaleOut(run)
      : await comparePeers({ ...run, withPeers: values.peers, root: ROOT })
  } finally {
    await servers.stopAll()
    rmSync(work, { recursive: true, force: true })
  }
  process.exit()
}

/** Where the services keep pets and count requests: their environment beyond the defaults. */
type ServiceEnv = Record<string, string>

/** Several instances driven at once, connections split evenly: req/s add up, the slowest latencies count. */
async function runOnAll(
  scenario: Scenario,
  context: ScenarioContext,
  urls: string[],
  judge: boolean,
): Promise<LoadResult> {
  const share = Math.max(1, Math.round(connections / urls.length))
  // Built once, so the instances share what the requests name (the pets the contention scenario's clients race for).
  const requests = scenario.requests(context)
  const runs = await Promise.all(
    urls.map((url) => runLoad(scenario, context, { url, connections: share, duration, judge }, requests)),
  )
  const sum = (pick: (r: LoadResult) => number) => runs.reduce((total, r) => total + pick(r), 0)
  return {
    rps: sum((r) => r.rps),
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    requests: sum((r) => r.requests),
    wrong: sum((r) => r.wrong),
    firstWrong: runs.find((r) => r.firstWrong)?.firstWrong,
  }
}

/** Rounds of baseline then service, back to back; medians of each and of the per-round ratios. */
async function measure(
  scenario: Scenario,
  services: { url: string; pid: number }[],
  context: ScenarioContext,
  withBaseline: boolean,
): Promise<ScenarioResult> {
  const [service] = services as [{ url: string; pid: number }]
  const baseline = withBaseline ? await servers.baseline(await recordAnswer(service.url, scenario, context)) : undefined
  const serviceRuns: LoadResult[] = []
  const baselineRuns: LoadResult[] = []
  const wrkRatios: number[] = []
  const rssBefore = await rssOf(service.pid)
  try {
    for (let round = 0; round < (withBaseline ? rounds : 1); round++) {
      if (baseline)
        baselineRuns.push(await runLoad(scenario, context, { url: baseline.url, connections, duration, judge: false }))
      serviceRuns.push(
        await runOnAll(
          scenario,
          context,
          services.map((s) => s.url),
          true,
        ),
      )
    }
    for (let round = 0; baseline && useWrk && services.length === 1 && round < rounds; round++) {
      // Made for each round: a scenario that takes fresh pets (the orders) takes them anew.
      const script = wrkScript(scenario, context)
      const raw = await runWrk(script, baseline.url, { connections, duration, work })
      const ours = await runWrk(script, service.url, { connections, duration, work })
      wrkRatios.push(ours.rps / raw.rps)
    }
  } finally {
    if (baseline) await servers.stop(baseline)
  }
  const sum = (pick: (r: LoadResult) => number) => serviceRuns.reduce((total, r) => total + pick(r), 0)
  return {
    scenario: scenario.name,
    what: scenario.what,
    pets: context.pets,
    rps: median(serviceRuns.map((r) => r.rps)),
    baselineRps: baseline ? median(baselineRuns.map((r) => r.rps)) : undefined,
    ratio: baseline ? median(serviceRuns.map((r, i) => r.rps / baselineRuns[i]!.rps)) : undefined,
    wrkRatio: wrkRatios.length > 0 ? median(wrkRatios) : undefined,
    p50: median(serviceRuns.map((r) => r.p50)),
    p99: median(serviceRuns.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    wrong: sum((r) => r.wrong),
    firstWrong: serviceRuns.find((r) => r.firstWrong)?.firstWrong,
    rssBefore,
    rssAfter: await rssOf(service.pid),
  }
}

let sharedServices: string | undefined

/** Seeds the store the mode names and returns the keys and the services' environment. */
async function prepareStores(): Promise<{ keys: BenchKeys; env: ServiceEnv }> {
  const env: ServiceEnv = {}
  let keys: BenchKeys
  // Its own folder under the temporary directory: PostgreSQL runs as another user, who cannot enter `work`.
  if (store === 'postgres' || limiterKind === 'redis')
    sharedServices = mkdtempSync(join(tmpdir(), 'animal-store-services-'))
  const urls = sharedServices ? startSharedServices(sharedServices) : {}
  if (store === 'postgres') {
    const seeded = await seedPostgres(urls.DATABASE_URL!, 'bench', pets)
    keys = seeded.keys
    env.DATABASE_URL = seeded.url
  } else {
    env.DATABASE_PATH = join(work, `pets-${pets}.sqlite`)
    keys = await seedDatabase(env.DATABASE_PATH, pets)
  }
  if (limiterKind === 'redis') env.REDIS_URL = urls.REDIS_URL!
  return { keys, env }
}

const results: ScenarioResult[] = []
const notes: string[] = []
try {
  console.error(`bench: ${mode}; seeding ${pets.toLocaleString('en')} pets`)
  const { keys, env } = await prepareStores()
  const services: Running[] = []
  for (let i = 0; i < instances; i++) services.push(await servers.service(env))
  // The uncompressed form's ETag, which the 304 scenario (no Accept-Encoding) must send: each form has its own.
  const hotList = await fetch(`${services[0]!.url}/v1/pets?limit=20`, {
    headers: { authorization: `Bearer ${keys.unlimited}`, 'accept-encoding': 'identity' },
  })
  await hotList.arrayBuffer()
  const context: ScenarioContext = { keys, pets, hotListEtag: hotList.headers.get('etag') ?? '' }
  for (const scenario of SCENARIOS) {
    if (only && !only.includes(scenario.name)) continue
    // Banned for the whole scenario (a round: autocannon and wrk on the baseline and the service), however long the
    // scenarios before it took.
    if (scenario.name === '429 path')
      await banFreeKeyFor(services[0]!.url, keys.free, timedRunsMs(4 * rounds, duration))
    await scenario.prepare?.(services[0]!.url, context)
    console.error(`bench: ${scenario.name} (${scenario.what})`)
    const result = await measure(scenario, services, context, true)
    const verified = await scenario.verify?.(services[0]!.url, context)
    if (verified) {
      // What the runs left in the store, read back: a problem there is a wrong answer of the scenario.
      result.wrong += verified.problems.length
      result.firstWrong ??= verified.problems[0]
      notes.push(`${scenario.name}: ${verified.checked}`)
      console.error(`bench: ${scenario.name}, the store read back: ${verified.checked}`)
    }
    results.push(result)
    console.error(table([result]).split('\n').at(-1))
  }
  for (const service of services) await servers.stop(service)

  if (values.scale) {
    const listScenarios = SCENARIOS.filter(
      (s) =>
        ['hot list', 'cold list', 'filtered list', 'first page', 'deep page', 'inventory'].includes(s.name) &&
        (!only || only.includes(s.name)),
    )
    for (const size of [1_000, 100_000, 1_000_000]) {
      const path = join(work, `scale-${size}.sqlite`)
      console.error(`bench: scale, seeding ${size.toLocaleString('en')} pets`)
      const scaleKeys = await seedDatabase(path, size)
      const scaled = await servers.service({ DATABASE_PATH: path })
      for (const scenario of listScenarios) {
        const result = await measure(scenario, [scaled], { keys: scaleKeys, pets: size }, false)
        results.push({ ...result, scenario: `${scenario.name} @ ${size.toLocaleString('en')}` })
        console.error(
          table([results.at(-1)!])
            .split('\n')
            .at(-1),
        )
      }
      await servers.stop(scaled)
      rmSync(path, { force: true })
    }
    // The address flood is part of a whole scale run, not of one limited to some scenarios.
    if (!only) {
      const addresses = 1_000_000
      console.error(`bench: RSS after ${addresses.toLocaleString('en')} distinct client addresses`)
      const path = join(work, 'addresses.sqlite')
      const addressKeys = await seedDatabase(path, 1_000)
      const fresh = await servers.service({ DATABASE_PATH: path })
      const rssBefore = await rssOf(fresh.pid)
      let next = 0
      const distinct: Scenario = {
        name: 'distinct addresses',
        what: `${addresses.toLocaleString('en')} requests without a key, each from a new X-Forwarded-For address`,
        requests: () => [
          {
            method: 'GET',
            path: '/v1/pets?limit=1',
            setupRequest: (request) => {
              const n = next++
              return {
                ...request,
                headers: {
                  'x-forwarded-for': `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`,
                  'x-n': String(n >>> 24),
                },
              }
            },
          },
        ],
        check: (answer) => (answer.status === 401 ? undefined : `status ${answer.status}`),
      }
      const run = await runLoad(
        distinct,
        { keys: addressKeys, pets: 1_000 },
        { url: fresh.url, connections, amount: addresses, judge: true },
      )
      results.push({
        scenario: 'distinct addresses',
        what: distinct.what,
        pets: 1_000,
        rps: run.rps,
        p50: run.p50,
        p99: run.p99,
        errors: run.errors,
        non2xx: run.non2xx,
        wrong: run.wrong,
        firstWrong: run.firstWrong,
        rssBefore,
        rssAfter: await rssOf(fresh.pid),
      })
      notes.push(`distinct addresses: ${next.toLocaleString('en')} requests sent; 10.x.y.z wraps after 16.7 million`)
      await servers.stop(fresh)
    }
  }
} finally {
  await servers.stopAll()
  if (sharedServices) {
    stopSharedServices(sharedServices)
    rmSync(sharedServices, { recursive: true, force: true })
  }
  rmSync(work, { recursive: true, force: true })
}

const report: BenchReport = {
  date: new Date().toISOString(),
  mode,
  machine,
  pinned: canPin,
  generator: `autocannon ${(await import('autocannon/package.json')).version}${useWrk ? ' (and wrk, same scenarios with a fixed request)' : ''}`,
  connections,
  duration,
  rounds,
  results,
  notes,
}
console.log(
  `\n${mode}: ${report.generator}, ${connections} connections, ${duration} s per run, ${rounds} rounds (median), ${canPin ? 'pinned' : 'not pinned'}; ${machine}\n`,
)
console.log(table(results))
for (const note of notes) console.log(note)
for (const result of results)
  if (result.firstWrong)
    console.log(`WRONG ANSWERS in ${result.scenario}: ${result.wrong}, first: ${result.firstWrong}`)
if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`)
if (values.svg) writeFileSync(values.svg, svgChart(report))
process.exitCode = results.some((r) => r.wrong > 0 || r.errors > 0) ? 1 : 0
