import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { banFreeKeyFor, type LoadResult, runLoad, timedRunsMs } from './load'
import { cpuSeconds } from './processes'
import { finishRun, groupedBars, markdownTable } from './report'
import { lowestAndHighest, median, multipleWithRange } from './rounds'
import { SCENARIOS, type Scenario, type ScenarioContext } from './scenarios'
import { seedDatabase, seedPostgres } from './seed'
import type { BenchServers, Running } from './servers'
import { postgresCpu, postgresCpuSince, redisCpu, startSharedServices, stopSharedServices } from './shared_services'
import { runWrk, wrkScript } from './wrk'

/** The scenarios the scale-out run measures unless `--only` names others: the three with targets, and the writes. */
export const SCALE_OUT_SCENARIOS = [
  'hot list',
  'cold list',
  '429 path',
  'filtered list',
  'deep page',
  'create',
  'update',
]

/** Per instance, the service's CPU per request on PostgreSQL + Redis as a multiple of SQLite + memory's: the targets. */
export const SCALE_OUT_TARGETS: Record<string, number> = { 'hot list': 1.5, '429 path': 1.3, 'cold list': 2 }

/** Each instance's part of a run's connections, split evenly over `instances` (at least one each). */
export function connectionShare(connections: number, instances: number): number {
  return Math.max(1, Math.round(connections / instances))
}

const instancesText = (instances: number) => `${instances} instance${instances === 1 ? '' : 's'}`
const sqliteName = (instances: number) => `SQLite + memory, ${instancesText(instances)}`
const sharedName = (instances: number) => `PostgreSQL + Redis, ${instancesText(instances)}`
export const SINGLE_NAME = sqliteName(1)

/** One way to deploy the service: its instances (driven at once, connections split evenly) and their keys. */
interface Deployment {
  name: string
  instances: Running[]
  context: ScenarioContext
  /** Whether PostgreSQL and Redis serve it (their CPU is then measured beside the service's). */
  shared: boolean
  /** The only scenarios it runs, when not all. */
  scenarios?: readonly string[]
}

/** One deployment's figures in one scenario, over its rounds. */
export interface DeploymentResult {
  deployment: string
  instances: number
  /** Median over the rounds of the wrk req/s, summed over the instances. */
  wrkRps: number
  /** CPU time (user + system) per request served, in µs, over every round: the service's instances together... */
  serviceCpuMicros: number
  /** ...PostgreSQL's processes (the postmaster and its backends), and Redis's, for the shared deployments. */
  postgresCpuMicros?: number
  redisCpuMicros?: number
  /** The service's CPU per request over the single process's in the same rounds... */
  multiple?: number
  /** ...and round by round (each round's two figures divided), for the spread: the lowest and the highest. */
  multipleRange?: [number, number]
  /**
   * The same against SQLite + memory run as as many processes on the same
   * CPU, when the scenario ran them: like for like, what sharing the core
   * costs any process is in both figures. Equal to `multiple` for one instance.
   */
  sameInstancesMultiple?: number
  sameInstancesRange?: [number, number]
  /** Connection errors and timeouts (10 s) of every run, wrk's and autocannon's; `wrkErrors` of them wrk's. */
  errors: number
  wrkErrors: number
  wrong: number
  firstWrong?: string
}

export interface ScaleOutResult {
  scenario: string
  what: string
  target?: number
  deployments: DeploymentResult[]
}

export interface ScaleOutReport {
  date: string
  command: string
  machine: string
  pinned: boolean
  connections: number
  duration: number
  rounds: number
  pets: number
  results: ScaleOutResult[]
}

/** What `--scale-out` needs from the bench's command line. */
export interface ScaleOutOptions {
  work: string
  servers: BenchServers
  pets: number
  rounds: number
  duration: number
  connections: number
  only: string[] | undefined
  machine: string
  pinned: boolean
  command: string
  json: string | undefined
  svg: string | undefined
}

/**
 * `--scale-out`: the service on SQLite + memory (one process) and on
 * PostgreSQL + Redis (one instance, then three sharing the load), the same
 * pets in each, interleaved round by round with wrk (connections split
 * evenly over the instances), then autocannon checking every answer. In
 * the scenarios with targets, three SQLite + memory processes too, on one
 * file, each limiting alone: three instances' like-for-like reference. The
 * service's CPU per request is its own: it runs on CPU 0, PostgreSQL, Redis
 * and the load generator on CPU 1, and their CPU per request is read apart.
 * Prints the table; returns the exit status (1 on any wrong answer or error).
 */
export async function compareScaleOut(options: ScaleOutOptions): Promise<number> {
  const { servers, work } = options
  // Its own folder under the temporary directory: PostgreSQL runs as another user, who cannot enter `work`.
  const servicesDir = mkdtempSync(join(tmpdir(), 'animal-store-services-'))
  // On the load generator's CPU, apart from the service's: the service's CPU per request is then its own.
  const urls = startSharedServices(servicesDir, 1)
  try {
    console.error(`bench: seeding ${options.pets.toLocaleString('en')} pets in SQLite and in PostgreSQL`)
    const path = join(work, 'single.sqlite')
    const singleKeys = await seedDatabase(path, options.pets)
    const seeded = await seedPostgres(urls.DATABASE_URL!, 'scale_out', options.pets)
    const sharedEnv = { DATABASE_URL: seeded.url, REDIS_URL: urls.REDIS_URL! }
    // Three processes on a copy of the same pets and keys (made before any process opens them), each limiting
    // alone: the like-for-like reference of three shared instances (the same CPU shared, the same connections
    // split), for the scenarios with targets.
    const threePath = join(work, 'three.sqlite')
    copyFileSync(path, threePath)
    const single = await servers.service({ DATABASE_PATH: path })
    const three: Running[] = []
    for (let i = 0; i < 3; i++) three.push(await servers.service({ DATABASE_PATH: threePath }))
    const shared: Running[] = []
    for (let i = 0; i < 3; i++) shared.push(await servers.service(sharedEnv))
    const sqliteContext = { keys: singleKeys, pets: options.pets }
    const sharedContext = { keys: seeded.keys, pets: options.pets }
    const deployments: Deployment[] = [
      { name: SINGLE_NAME, instances: [single], context: sqliteContext, shared: false },
      { name: sharedName(1), instances: shared.slice(0, 1), context: sharedContext, shared: true },
      {
        name: sqliteName(3),
        instances: three,
        context: sqliteContext,
        shared: false,
        scenarios: Object.keys(SCALE_OUT_TARGETS),
      },
      { name: sharedName(3), instances: shared, context: sharedContext, shared: true },
    ]
    const names = options.only ?? SCALE_OUT_SCENARIOS
    const results: ScaleOutResult[] = []
    for (const scenario of SCENARIOS.filter((s) => names.includes(s.name))) {
      console.error(`bench: ${scenario.name} (${scenario.what}), ${options.rounds} rounds`)
      const running = deployments.filter((d) => d.scenarios?.includes(scenario.name) ?? true)
      results.push(await measureScaleOut(scenario, running, servicesDir, options))
      console.error(scaleOutTable(results.slice(-1)))
    }
    const report: ScaleOutReport = {
      date: new Date().toISOString(),
      command: options.command,
      machine: options.machine,
      pinned: options.pinned,
      connections: options.connections,
      duration: options.duration,
      rounds: options.rounds,
      pets: options.pets,
      results,
    }
    console.log(
      `\nwrk (answers checked by autocannon runs), ${report.connections} connections split over the instances, ${report.duration} s per run, ${report.rounds} interleaved rounds, ${report.pinned ? 'service on CPU 0, PostgreSQL, Redis and the load on CPU 1' : 'not pinned'}; ${report.machine}\n`,
    )
    console.log(scaleOutTable(results))
    return finishRun(
      report,
      () => scaleOutChart(report),
      options,
      results.flatMap((result) =>
        result.deployments.map((d) => ({
          ...d,
          scenario: result.scenario,
          server: `${d.deployment} (${d.wrkErrors} of the errors wrk's)`,
        })),
      ),
    )
  } finally {
    await servers.stopAll()
    stopSharedServices(servicesDir)
    rmSync(servicesDir, { recursive: true, force: true })
  }
}

/** `scenario` on every deployment, interleaved round by round (the order turns each round). */
async function measureScaleOut(
  scenario: Scenario,
  deployments: Deployment[],
  servicesDir: string,
  options: ScaleOutOptions,
): Promise<ScaleOutResult> {
  type Round = { wrk: number; requests: number; service: number; postgres: number; redis: number; errors: number }
  const rounds = new Map<string, Round[]>(deployments.map((d) => [d.name, []]))
  const checks = new Map<string, LoadResult[]>(deployments.map((d) => [d.name, []]))
  const wrkRun = (deployment: Deployment, duration: number) => {
    const script = wrkScript(scenario, deployment.context)
    const share = connectionShare(options.connections, deployment.instances.length)
    return Promise.all(
      deployment.instances.map((instance, i) => {
        // A folder each: every wrk reads its own copy of the script.
        const dir = join(options.work, `wrk-${i}`)
        if (!existsSync(dir)) mkdirSync(dir)
        return runWrk(script, instance.url, { connections: share, duration, work: dir })
      }),
    )
  }
  // Each deployment's warm-up, then in each round its wrk runs (at once on its instances) and the autocannon run.
  const scenarioMs =
    timedRunsMs(deployments.length, 2) + timedRunsMs(2 * options.rounds * deployments.length, options.duration)
  for (const deployment of deployments) {
    // Banned for the whole scenario, however long the run before it took: through Redis on every shared instance at
    // once, but in each SQLite + memory process apart, as each limits alone.
    if (scenario.name === '429 path')
      for (const instance of deployment.shared ? deployment.instances.slice(0, 1) : deployment.instances)
        await banFreeKeyFor(instance.url, deployment.context.keys.free, scenarioMs)
    await scenario.prepare?.(deployment.instances[0]!.url, deployment.context)
  }
  // Unmeasured first: each process's JIT warms up on this scenario's path.
  for (const deployment of deployments) await wrkRun(deployment, Math.min(2, options.duration))
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < deployments.length; i++) {
      const deployment = deployments[(i + round) % deployments.length]!
      const pids = deployment.instances.map((instance) => instance.pid)
      const before = {
        service: sum(pids.map(cpuSeconds)),
        postgres: postgresCpu(servicesDir),
        redis: redisCpu(servicesDir),
      }
      const runs = await wrkRun(deployment, options.duration)
      const postgres = postgresCpuSince(servicesDir, before.postgres)
      rounds.get(deployment.name)!.push({
        wrk: sum(runs.map((run) => run.rps)),
        requests: sum(runs.map((run) => run.requests)),
        service: sum(pids.map(cpuSeconds)) - before.service,
        postgres,
        redis: redisCpu(servicesDir) - before.redis,
        errors: sum(runs.map((run) => run.errors)),
      })
      checks.get(deployment.name)!.push(await checkAnswers(scenario, deployment, options))
    }
  }
  for (const deployment of deployments) {
    const verified = await scenario.verify?.(deployment.instances[0]!.url, deployment.context)
    if (verified && verified.problems.length > 0) {
      const runs = checks.get(deployment.name)!
      runs[0]!.wrong += verified.problems.length
      runs[0]!.firstWrong ??= verified.problems[0]
    }
  }
  const perRequest = (runs: Round[], pick: (run: Round) => number) =>
    (sum(runs.map(pick)) / sum(runs.map((run) => run.requests))) * 1e6
  const serviceCpu = (runs: Round[]) => perRequest(runs, (run) => run.service)
  /** A deployment's CPU per request as a multiple of another's in the same rounds, with the lowest and highest round by round. */
  const multipleOf = (runs: Round[], reference: Round[]): { multiple: number; range: [number, number] } => {
    const multiples = runs.map((run, round) => serviceCpu([run]) / serviceCpu([reference[round]!]))
    return {
      multiple: serviceCpu(runs) / serviceCpu(reference),
      range: lowestAndHighest(multiples),
    }
  }
  const singleRounds = rounds.get(SINGLE_NAME)!
  return {
    scenario: scenario.name,
    what: scenario.what,
    target: SCALE_OUT_TARGETS[scenario.name],
    deployments: deployments.map((deployment) => {
      const runs = rounds.get(deployment.name)!
      const checked = checks.get(deployment.name)!
      const sameInstances = rounds.get(sqliteName(deployment.instances.length))
      const againstSingle = deployment.shared ? multipleOf(runs, singleRounds) : undefined
      const againstSame = deployment.shared && sameInstances ? multipleOf(runs, sameInstances) : undefined
      return {
        deployment: deployment.name,
        instances: deployment.instances.length,
        wrkRps: median(runs.map((run) => run.wrk)),
        serviceCpuMicros: serviceCpu(runs),
        ...(againstSingle
          ? {
              postgresCpuMicros: perRequest(runs, (run) => run.postgres),
              redisCpuMicros: perRequest(runs, (run) => run.redis),
              multiple: againstSingle.multiple,
              multipleRange: againstSingle.range,
            }
          : {}),
        ...(againstSame ? { sameInstancesMultiple: againstSame.multiple, sameInstancesRange: againstSame.range } : {}),
        errors: sum(runs.map((run) => run.errors)) + sum(checked.map((run) => run.errors)),
        wrkErrors: sum(runs.map((run) => run.errors)),
        wrong: sum(checked.map((run) => run.wrong)),
        firstWrong: checked.find((run) => run.firstWrong)?.firstWrong,
      }
    }),
  }
}

/** autocannon on every instance at once, connections split, every answer checked by the scenario. */
async function checkAnswers(scenario: Scenario, deployment: Deployment, options: ScaleOutOptions): Promise<LoadResult> {
  const share = connectionShare(options.connections, deployment.instances.length)
  // Built once, so the instances share what the requests name.
  const requests = scenario.requests(deployment.context)
  const runs = await Promise.all(
    deployment.instances.map((instance) =>
      runLoad(
        scenario,
        deployment.context,
        { url: instance.url, connections: share, duration: options.duration, judge: true },
        requests,
      ),
    ),
  )
  return {
    rps: sum(runs.map((r) => r.rps)),
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    errors: sum(runs.map((r) => r.errors)),
    non2xx: sum(runs.map((r) => r.non2xx)),
    requests: sum(runs.map((r) => r.requests)),
    wrong: sum(runs.map((r) => r.wrong)),
    firstWrong: runs.find((r) => r.firstWrong)?.firstWrong,
  }
}

const sum = (xs: readonly number[]) => xs.reduce((total, x) => total + x, 0)

/** The run as one Markdown table: per scenario and deployment, req/s and every process's CPU per request. */
export function scaleOutTable(results: ScaleOutResult[]): string {
  const rows: string[][] = [
    [
      'scenario',
      'deployment',
      'wrk req/s (all instances)',
      'service CPU µs/request',
      '× SQLite + memory [rounds]',
      'target',
      '× SQLite + memory, as many instances [rounds]',
      'PostgreSQL CPU µs/request',
      'Redis CPU µs/request',
      'wrong',
    ],
  ]
  const micros = (value: number | undefined) => (value === undefined ? '' : value.toFixed(1))
  for (const result of results)
    for (const d of result.deployments)
      rows.push([
        result.scenario,
        d.deployment,
        Math.round(d.wrkRps).toLocaleString('en'),
        d.serviceCpuMicros.toFixed(1),
        d.multiple === undefined ? '' : multipleWithRange(d.multiple, d.multipleRange!),
        d.multiple === undefined || result.target === undefined ? '' : `≤ ${result.target}×`,
        d.sameInstancesMultiple === undefined ? '' : multipleWithRange(d.sameInstancesMultiple, d.sameInstancesRange!),
        micros(d.postgresCpuMicros),
        micros(d.redisCpuMicros),
        String(d.wrong),
      ])
  return markdownTable(rows)
}

const COLOURS = ['#8e99ad', '#3b7dd8', '#c3c9d4', '#e39b3a']

/**
 * Grouped bars: per scenario, each deployment's service CPU µs per request
 * (lower is better), as SVG; a deployment a scenario did not run has no bar there.
 */
export function scaleOutChart(report: ScaleOutReport): string {
  const names = [...new Set(report.results.flatMap((result) => result.deployments.map((d) => d.deployment)))]
  return groupedBars({
    title: 'Service CPU µs per request, per instance (lower is better; × SQLite + memory, 1 instance)',
    subtitle: `wrk, ${report.connections} connections, ${report.rounds} interleaved rounds of ${report.duration} s, ${report.pets.toLocaleString('en')} pets; ${report.machine}`,
    names,
    colours: COLOURS,
    groups: report.results.map((result) => ({
      label: result.scenario,
      bars: names.map((name) => {
        const d = result.deployments.find((deployment) => deployment.deployment === name)
        return (
          d && {
            value: d.serviceCpuMicros,
            text: `${d.serviceCpuMicros.toFixed(1)}${d.multiple === undefined ? '' : ` (${d.multiple.toFixed(2)}×)`}`,
          }
        )
      }),
    })),
    textRoom: 100,
  })
}
