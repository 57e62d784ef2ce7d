// Draws the chart of a bench run from its JSON, as bench/run.ts --svg does.
//
//   bun bench/tools/plot.ts bench/results/latest.json bench/results/latest.svg
import { readFileSync, writeFileSync } from 'node:fs'
import { type BenchReport, svgChart } from '../lib/report'

const [input, output] = process.argv.slice(2)
if (!input || !output) throw new Error('usage: bun bench/tools/plot.ts RESULTS.json CHART.svg')
writeFileSync(output, svgChart(JSON.parse(readFileSync(input, 'utf8')) as BenchReport))
