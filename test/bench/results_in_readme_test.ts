import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type BenchReport, svgChart, table } from '../../bench/lib/report'
import { type ScaleOutReport, scaleOutChart, scaleOutTable } from '../../bench/lib/scale_out'
import { referenceTable, type SideBySideReport, sideBySideChart, sideBySideTable } from '../../bench/lib/side_by_side'

const ROOT = join(import.meta.dir, '../..')
const README = readFileSync(join(ROOT, 'bench/README.md'), 'utf8')
const result = <T>(file: string): T => JSON.parse(readFileSync(join(ROOT, 'bench/results', file), 'utf8')) as T
const chart = (file: string) => readFileSync(join(ROOT, 'bench/results', file), 'utf8')

// A run's JSON is what it measured; the README's tables and the charts beside it must be that run, as the bench
// prints and draws it, not figures typed in by hand or left from an older run.
describe('bench/README.md and bench/results/ are the same runs', () => {
  test('the side-by-side tables and chart are those of peers.json', () => {
    const peers = result<SideBySideReport>('peers.json')
    expect(README).toContain(sideBySideTable(peers.results))
    expect(README).toContain(referenceTable(peers.results))
    expect(chart('peers.svg')).toBe(sideBySideChart(peers))
  })

  test('the scale-out table and chart are those of scale-out.json', () => {
    const scaleOut = result<ScaleOutReport>('scale-out.json')
    expect(README).toContain(scaleOutTable(scaleOut.results))
    expect(chart('scale-out.svg')).toBe(scaleOutChart(scaleOut))
  })

  test('the latest run’s table and chart are those of latest.json', () => {
    const latest = result<BenchReport>('latest.json')
    expect(README).toContain(table(latest.results))
    expect(chart('latest.svg')).toBe(svgChart(latest))
  })
})
