import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FLOOR_NAME, SERVICE_NAME, STORE_WORK_NAMES } from '../../bench/lib/compare_peers'
import type { BenchReport } from '../../bench/lib/report'
import { type ScaleOutReport, SINGLE_NAME, scaleOutChart } from '../../bench/lib/scale_out'
import { SCENARIOS } from '../../bench/lib/scenarios'
import type { SideBySideReport } from '../../bench/lib/side_by_side'
import { hasWrk } from '../../bench/lib/wrk'
import { type Program, runCli } from '../e2e/process_helpers'
import { requireInCi } from '../e2e/system_commands'
import { tempDir } from '../helpers'
import { SHARED_STORES } from '../shared_services'

const ROOT = join(import.meta.dir, '../..')
const WRK = requireInCi(hasWrk, 'run wrk (apt-get install wrk)')

/** bench/run.ts, run as runCli runs a program. */
const BENCH: Program = { command: [process.execPath, join(ROOT, 'bench/run.ts')], cwd: ROOT }

/** Runs the bench with `args`: its standard output, exit code, and on failure the tail of what it printed. */
async function runBench(args: string[]): Promise<{ output: string; code: number; tail: string }> {
  const { code, stdout, stderr } = await runCli(args, {}, BENCH)
  return { output: stdout, code, tail: code === 0 ? '' : `${stdout}\n${stderr}`.slice(-3000) }
}

// The bench cannot rot: every scenario runs for about a second (the peers are left out: they build
// better-sqlite3 on first use), and every answer is checked as in a real run. No timing is asserted.
describe('the bench, as a smoke run', () => {
  test('runs every scenario against the service and raw Bun with no wrong answer, with wrk where installed', async () => {
    const { dir, cleanup } = tempDir('animal-store-bench-smoke-')
    try {
      const json = join(dir, 'smoke.json')
      const { code, tail } = await runBench([
        ...['--pets', '2000', '--duration', '1', '--rounds', '1', '--connections', '10', '--json', json],
        ...(WRK ? [] : ['--skip-wrk']),
      ])
      expect({ code, tail }).toEqual({ code: 0, tail: '' })
      const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport
      expect(report.results.map((result) => result.scenario)).toEqual(SCENARIOS.map((scenario) => scenario.name))
      for (const result of report.results) {
        expect({ scenario: result.scenario, wrong: result.wrong, errors: result.errors }).toEqual({
          scenario: result.scenario,
          wrong: 0,
          errors: 0,
        })
        expect(result.rps).toBeGreaterThan(0)
        expect(result.ratio).toBeGreaterThan(0)
        if (WRK) expect(result.wrkRatio).toBeGreaterThan(0)
      }
      // The order scenarios read every pet they used back: none has two placed orders.
      const readBack = report.notes?.filter((note) => note.includes('double sales')) ?? []
      expect(readBack).toHaveLength(2)
      for (const note of readBack) expect(note).toContain(', 0 double sales')
    } finally {
      cleanup()
    }
  }, 240_000)

  test('--floors gives each scenario with a reference the service’s CPU per request as a multiple of it', async () => {
    if (!WRK) return
    const { dir, cleanup } = tempDir('animal-store-bench-floors-')
    try {
      const json = join(dir, 'floors.json')
      const scenarios = SCENARIOS.filter((scenario) => scenario.reference !== undefined)
      const { output, code, tail } = await runBench([
        '--floors',
        ...['--pets', '2000', '--duration', '1', '--rounds', '1', '--connections', '10', '--json', json],
      ])
      expect({ code, tail }).toEqual({ code: 0, tail: '' })
      const report = JSON.parse(readFileSync(json, 'utf8')) as SideBySideReport
      expect(report.results.map((result) => result.scenario)).toEqual(scenarios.map((scenario) => scenario.name))
      for (const [i, result] of report.results.entries()) {
        const { of, target } = scenarios[i]!.reference!
        const reference = of === 'floor' ? FLOOR_NAME : STORE_WORK_NAMES[of]
        // The multiple is the two servers' own figures of this run, divided; with one round, so is its range.
        const cpu = (server: string) => result.contenders.find((c) => c.server === server)!.cpuMicrosPerRequest
        const multiple = cpu(SERVICE_NAME) / cpu(reference)
        expect(result.reference).toEqual({ server: reference, multiple, range: [multiple, multiple], target })
        expect(result.reference!.multiple).toBeGreaterThan(0)
        for (const contender of result.contenders)
          expect(contender.cpuMicrosByRound).toEqual([contender.cpuMicrosPerRequest])
        for (const contender of result.contenders)
          expect([result.scenario, contender.wrong]).toEqual([result.scenario, 0])
      }
      expect(output).toMatch(/\| scenario +\| reference +\|/)
    } finally {
      cleanup()
    }
  }, 240_000)

  // It starts PostgreSQL and Redis of its own (.ci/services), where the tests on them run.
  test.skipIf(!SHARED_STORES)(
    '--scale-out gives each deployment’s CPU per request, the shared ones as a multiple of SQLite + memory’s',
    async () => {
      if (!WRK) return
      const { dir, cleanup } = tempDir('animal-store-bench-scale-out-')
      try {
        const json = join(dir, 'scale-out.json')
        const { output, code, tail } = await runBench([
          '--scale-out',
          ...['--only', 'hot list,update', '--pets', '2000', '--duration', '1', '--rounds', '1'],
          ...['--connections', '12', '--json', json],
        ])
        expect({ code, tail }).toEqual({ code: 0, tail: '' })
        const report = JSON.parse(readFileSync(json, 'utf8')) as ScaleOutReport
        expect(report.results.map((result) => result.scenario)).toEqual(['hot list', 'update'])
        for (const result of report.results) {
          const [single] = result.deployments
          // Three SQLite + memory processes, the like-for-like reference of three shared instances, run where a target is.
          const targeted = result.scenario === 'hot list'
          expect(result.deployments.map((d) => [d.deployment, d.instances, d.wrong, d.errors])).toEqual([
            [SINGLE_NAME, 1, 0, 0],
            ['PostgreSQL + Redis, 1 instance', 1, 0, 0],
            ...(targeted ? [['SQLite + memory, 3 instances', 3, 0, 0]] : []),
            ['PostgreSQL + Redis, 3 instances', 3, 0, 0],
          ])
          const byName = new Map(result.deployments.map((d) => [d.deployment, d]))
          for (const sqlite of result.deployments.filter((d) => d.deployment.startsWith('SQLite'))) {
            expect(sqlite.multiple).toBeUndefined()
            expect(sqlite.sameInstancesMultiple).toBeUndefined()
          }
          for (const deployment of result.deployments.filter((d) => d.deployment.startsWith('PostgreSQL'))) {
            // The multiple is the two deployments' own figures of this run, divided; the shared stores' CPU beside it.
            expect(deployment.multiple).toBe(deployment.serviceCpuMicros / single!.serviceCpuMicros)
            // One round: its multiple is the lowest and the highest.
            expect(deployment.multipleRange![0]).toBeCloseTo(deployment.multiple!, 9)
            expect(deployment.multipleRange![1]).toBeCloseTo(deployment.multiple!, 9)
            expect(deployment.postgresCpuMicros).toBeGreaterThanOrEqual(0)
            expect(deployment.redisCpuMicros).toBeGreaterThan(0)
            // Like for like: against as many SQLite + memory processes, where they ran.
            const same = byName.get(`SQLite + memory, ${deployment.deployment.split(', ')[1]}`)
            if (same === undefined) expect(deployment.sameInstancesMultiple).toBeUndefined()
            else {
              expect(deployment.sameInstancesMultiple).toBe(deployment.serviceCpuMicros / same.serviceCpuMicros)
              expect(deployment.sameInstancesRange![0]).toBeCloseTo(deployment.sameInstancesMultiple!, 9)
              expect(deployment.sameInstancesRange![1]).toBeCloseTo(deployment.sameInstancesMultiple!, 9)
            }
          }
        }
        // The chart's legend names the four deployments; update, which three SQLite processes do not run, has three bars.
        const chart = scaleOutChart(report)
        expect(chart).toContain('>SQLite + memory, 3 instances</text>')
        expect(chart.match(/<rect /g)).toHaveLength(4 + 4 + 3)
        expect(output).toMatch(/\| scenario +\| deployment +\|/)
      } finally {
        cleanup()
      }
    },
    240_000,
  )
})
