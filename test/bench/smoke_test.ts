import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchReport } from '../../bench/lib/report'
import { SCENARIOS } from '../../bench/lib/scenarios'
import { hasWrk } from '../../bench/lib/wrk'
import { requireInCi } from '../e2e/system_commands'
import { tempDir } from '../helpers'

const ROOT = join(import.meta.dir, '../..')
const WRK = requireInCi(hasWrk, 'run wrk (apt-get install wrk)')

// The bench cannot rot: every scenario runs for about a second (the peers are left out: they build
// better-sqlite3 on first use), and every answer is checked as in a real run. No timing is asserted.
describe('the bench, as a smoke run', () => {
  test('runs every scenario against the service and raw Bun with no wrong answer, with wrk where installed', async () => {
    const { dir, cleanup } = tempDir('animal-store-bench-smoke-')
    try {
      const json = join(dir, 'smoke.json')
      const bench = Bun.spawn(
        [
          process.execPath,
          join(ROOT, 'bench/run.ts'),
          '--pets',
          '2000',
          '--duration',
          '1',
          '--rounds',
          '1',
          '--connections',
          '10',
          '--json',
          json,
          ...(WRK ? [] : ['--skip-wrk']),
        ],
        { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
      )
      const [output, errors, code] = await Promise.all([
        new Response(bench.stdout).text(),
        new Response(bench.stderr).text(),
        bench.exited,
      ])
      expect({ code, tail: code === 0 ? '' : `${output}\n${errors}`.slice(-3000) }).toEqual({ code: 0, tail: '' })
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
})
