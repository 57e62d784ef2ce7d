import { runLoad, timedRunsMs } from './load'
import { cpuSeconds } from './processes'
import { groupedBars, markdownTable } from './report'
import { lowestAndHighest, median, multipleWithRange } from './rounds'
import type { Scenario, ScenarioContext } from './scenarios'
import { runWrk, wrkScript } from './wrk'

/** A server in the comparison: the raw baseline, the service or a peer. */
export interface Contender {
  name: string
  url: string
  pid: number
  /**
   * `raw`: the Bun.serve replaying the service's bytes, the yardstick, its
   * answers not judged; `floor`: a reference, not judged either: an Elysia
   * app replaying the same bytes through Elysia's `set`
   * (bench/servers/elysia_floor.ts), or raw Bun doing only the store's work
   * (bench/servers/baseline_server.ts with BASELINE_PETS);
   * `peer`: bench/servers/peers, checked for what peers promise.
   */
  kind: ContenderKind
}

export type ContenderKind = 'raw' | 'floor' | 'service' | 'peer'

/** One server's figures in one scenario: medians over the rounds, ratios to the raw baseline of the same round. */
export interface ContenderResult {
  server: string
  kind: ContenderKind
  wrkRps: number
  /** Median of the per-round wrk ratios to raw, and their spread. */
  wrkRatio: number
  wrkRatioMin: number
  wrkRatioMax: number
  autocannonRps: number
  autocannonRatio: number
  /** The server's CPU time (user + system, all threads) per request served, in µs, over its wrk runs. */
  cpuMicrosPerRequest: number
  /** The same, round by round: each round's CPU over the requests wrk completed in it. */
  cpuMicrosByRound: number[]
  /** Connection errors (wrk and autocannon) and wrong answers (autocannon checks every one). */
  errors: number
  wrong: number
  firstWrong?: string
}

export interface SideBySideResult {
  scenario: string
  what: string
  contenders: ContenderResult[]
  /** The service's CPU per request as a multiple of its reference's, where the scenario names one. */
  reference?: ReferenceMultiple
}

/** The service against the reference of a scenario (Scenario.reference): which server, the multiple, the target. */
export interface ReferenceMultiple {
  server: string
  /** The service's CPU per request over all its rounds, over the reference's over all of its. */
  multiple: number
  /** The lowest and the highest of the rounds' own multiples (the two servers' figures of one round, divided). */
  range: [number, number]
  target?: number
}

/**
 * Measures `scenario` on every contender, interleaved round by round (the
 * order turns each round, so no server always runs first): wrk with the
 * server's CPU time read from /proc around it, then autocannon, which checks
 * every answer. The first contender must be the raw baseline.
 */
export async function measureSideBySide(
  scenario: Scenario,
  contenders: Contender[],
  context: ScenarioContext,
  options: {
    rounds: number
    duration: number
    connections: number
    work: string
    /** Run before the warm-up and before each round, told how long what follows may take (the 429 path's ban). */
    ahead?: (ms: number) => Promise<void>
  },
): Promise<SideBySideResult> {
  const script = wrkScript(scenario, context)
  type Round = { wrk: number; autocannon: number; cpu: number; requests: number; errors: number; wrong: number }
  const rounds = new Map<string, Round[]>(contenders.map((c) => [c.name, []]))
  const firstWrong = new Map<string, string>()
  const warmUpSeconds = Math.min(2, options.duration)
  // A round is wrk and autocannon on each contender.
  const roundMs = timedRunsMs(2 * contenders.length, options.duration)
  await options.ahead?.(timedRunsMs(contenders.length, warmUpSeconds) + roundMs)
  // Unmeasured first: the JIT of each server warms up on this scenario's path, as it would in a long run.
  for (const contender of contenders) await runWrk(script, contender.url, { ...options, duration: warmUpSeconds })
  for (let round = 0; round < options.rounds; round++) {
    if (round > 0) await options.ahead?.(roundMs)
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!)
    for (const contender of order) {
      const cpuBefore = cpuSeconds(contender.pid)
      const wrk = await runWrk(script, contender.url, options)
      const cpu = cpuSeconds(contender.pid) - cpuBefore
      const checked = await runLoad(
        scenario,
        { ...context, peer: contender.kind === 'peer' },
        {
          url: contender.url,
          connections: options.connections,
          duration: options.duration,
          judge: contender.kind === 'service' || contender.kind === 'peer',
        },
      )
      if (checked.firstWrong && !firstWrong.has(contender.name)) firstWrong.set(contender.name, checked.firstWrong)
      rounds.get(contender.name)!.push({
        wrk: wrk.rps,
        autocannon: checked.rps,
        cpu,
        requests: wrk.requests,
        errors: wrk.errors + checked.errors,
        wrong: checked.wrong,
      })
    }
  }
  const raw = rounds.get(contenders[0]!.name)!
  return {
    scenario: scenario.name,
    what: scenario.what,
    contenders: contenders.map(({ name, kind }) => {
      const runs = rounds.get(name)!
      const wrkRatios = runs.map((run, i) => run.wrk / raw[i]!.wrk)
      const cpuTotal = runs.reduce((sum, run) => sum + run.cpu, 0)
      const requestTotal = runs.reduce((sum, run) => sum + run.requests, 0)
      return {
        server: name,
        kind,
        wrkRps: median(runs.map((run) => run.wrk)),
        wrkRatio: median(wrkRatios),
        wrkRatioMin: Math.min(...wrkRatios),
        wrkRatioMax: Math.max(...wrkRatios),
        autocannonRps: median(runs.map((run) => run.autocannon)),
        autocannonRatio: median(runs.map((run, i) => run.autocannon / raw[i]!.autocannon)),
        cpuMicrosPerRequest: (cpuTotal / requestTotal) * 1e6,
        cpuMicrosByRound: runs.map((run) => (run.cpu / run.requests) * 1e6),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        wrong: runs.reduce((sum, run) => sum + run.wrong, 0),
        firstWrong: firstWrong.get(name),
      }
    }),
  }
}

/** The side-by-side results as one Markdown table: per scenario, every server, and the service against the best peer. */
export function sideBySideTable(results: SideBySideResult[]): string {
  const rows: string[][] = [
    [
      'scenario',
      'server',
      'wrk req/s',
      'ratio to raw (wrk), median [min–max]',
      'autocannon req/s',
      'ratio (autocannon)',
      'server CPU µs/request',
      'vs best peer (wrk)',
      'wrong',
    ],
  ]
  for (const result of results) {
    const peers = result.contenders.filter((c) => c.kind === 'peer')
    const bestPeer = Math.max(...peers.map((c) => c.wrkRps))
    for (const c of result.contenders)
      rows.push([
        result.scenario,
        c.server,
        Math.round(c.wrkRps).toLocaleString('en'),
        `${c.wrkRatio.toFixed(2)} [${c.wrkRatioMin.toFixed(2)}–${c.wrkRatioMax.toFixed(2)}]`,
        Math.round(c.autocannonRps).toLocaleString('en'),
        c.autocannonRatio.toFixed(2),
        c.cpuMicrosPerRequest.toFixed(1),
        c.kind === 'service' && peers.length > 0 ? `${(c.wrkRps / bestPeer).toFixed(2)}×` : '',
        String(c.wrong),
      ])
  }
  return markdownTable(rows)
}

/** Per scenario with a reference: the service's CPU per request, its reference's, the multiple and its target. */
export function referenceTable(results: SideBySideResult[]): string {
  const rows: string[][] = [
    [
      'scenario',
      'reference',
      'reference CPU µs/request',
      'service CPU µs/request',
      'multiple [min–max by round]',
      'target',
    ],
  ]
  for (const { scenario, contenders, reference } of results) {
    if (reference === undefined) continue
    const cpu = (server: string) => contenders.find((c) => c.server === server)!.cpuMicrosPerRequest.toFixed(1)
    const service = contenders.find((c) => c.kind === 'service')!
    rows.push([
      scenario,
      reference.server,
      cpu(reference.server),
      cpu(service.server),
      multipleWithRange(reference.multiple, reference.range),
      reference.target === undefined ? '' : `≤ ${reference.target}×`,
    ])
  }
  return markdownTable(rows)
}

/**
 * The service's CPU per request over its reference's (`server`, a server of
 * the same run) over all their rounds, with the lowest and highest of the
 * rounds' own multiples, and the target aimed at.
 */
export function referenceMultiple(
  result: SideBySideResult,
  service: string,
  server: string,
  target?: number,
): ReferenceMultiple {
  const of = (name: string) => result.contenders.find((c) => c.server === name)!
  const [mine, reference] = [of(service), of(server)]
  const byRound = mine.cpuMicrosByRound.map((cpu, round) => cpu / reference.cpuMicrosByRound[round]!)
  return {
    server,
    multiple: mine.cpuMicrosPerRequest / reference.cpuMicrosPerRequest,
    range: lowestAndHighest(byRound),
    target,
  }
}

/** A whole side-by-side run, with what it ran on: what `--peers --json` writes. */
export interface SideBySideReport {
  date: string
  command: string
  machine: string
  pinned: boolean
  generators: string
  connections: number
  duration: number
  rounds: number
  pets: number
  service: string
  results: SideBySideResult[]
}

const COLOURS = ['#c8ccd4', '#8e99ad', '#3b7dd8', '#e39b3a', '#5aa469', '#a05cc4', '#777']

/** Grouped bars: per scenario, each server's wrk ratio to raw Bun (median, with its min–max as a whisker), as SVG. */
export function sideBySideChart(report: SideBySideReport): string {
  return groupedBars({
    title: `Ratio to a raw Bun.serve of the same bytes, wrk (median of ${report.rounds} rounds; whisker: min–max)`,
    subtitle: `${report.generators}, ${report.connections} connections, ${report.duration} s runs, ${report.pinned ? 'pinned' : 'not pinned'}; ${report.machine}`,
    names: report.results[0]?.contenders.map((c) => c.server) ?? [],
    colours: COLOURS,
    groups: report.results.map((result) => ({
      label: result.scenario,
      bars: result.contenders.map((c) => ({
        value: c.wrkRatio,
        min: c.wrkRatioMin,
        max: c.wrkRatioMax,
        text: c.wrkRatio.toFixed(2),
      })),
    })),
    textRoom: 80,
  })
}
