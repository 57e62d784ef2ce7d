// Puts bench runs side by side (e.g. one, then three instances): for each
// scenario, each run's req/s, ratio to raw Bun measured in that run, and p99.
//
//   bun bench/tools/compare.ts one.json three.json
import { readFileSync } from 'node:fs'
import type { BenchReport } from '../lib/report'

const files = process.argv.slice(2)
if (files.length === 0) throw new Error('usage: bun bench/tools/compare.ts RESULTS.json...')
const reports = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchReport)
const scenarios = [...new Set(reports.flatMap((r) => r.results.map((result) => result.scenario)))]

const header = ['scenario', ...reports.map((r) => `${r.mode ?? 'sqlite + memory, 1 instance'}: req/s · ratio · p99 ms`)]
const rows = scenarios.map((scenario) => [
  scenario,
  ...reports.map((report) => {
    const result = report.results.find((r) => r.scenario === scenario)
    if (!result) return '-'
    return `${Math.round(result.rps).toLocaleString('en')} · ${result.ratio?.toFixed(2) ?? '-'} · ${result.p99}`
  }),
])
console.log(`| ${header.join(' | ')} |`)
console.log(`|${header.map(() => '---').join('|')}|`)
for (const row of rows) console.log(`| ${row.join(' | ')} |`)
