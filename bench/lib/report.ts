import { writeFileSync } from 'node:fs'
/** One scenario's figures, as printed and written to JSON. */
export interface ScenarioResult {
  scenario: string
  what: string
  pets: number
  /** Median req/s of the service over the rounds. */
  rps: number
  /** Median req/s of the raw baseline, when one ran. */
  baselineRps?: number
  /** Median of the per-round ratios service / baseline. */
  ratio?: number
  /** The same ratio measured with wrk, for scenarios with one fixed request. */
  wrkRatio?: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  wrong: number
  firstWrong?: string
  rssBefore?: number
  rssAfter?: number
}

/** A whole run, with what it ran on. */
export interface BenchReport {
  date: string
  /** Store, limiter and instances, e.g. "postgres + redis, 3 instances" (absent in older runs: SQLite + memory, 1). */
  mode?: string
  machine: string
  pinned: boolean
  generator: string
  connections: number
  duration: number
  rounds: number
  results: ScenarioResult[]
  notes: string[]
}

/** A server (or deployment) of one scenario that gave wrong answers or errors, for the line that says so. */
export interface Failing {
  scenario: string
  server: string
  wrong: number
  errors: number
  firstWrong?: string
}

/** Writes a run's JSON and its chart where the command line asked; one WRONG line per failing server. Returns the exit status. */
export function finishRun(
  report: object,
  chart: () => string,
  files: { json: string | undefined; svg: string | undefined },
  servers: Failing[],
): number {
  if (files.json) writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`)
  if (files.svg) writeFileSync(files.svg, chart())
  const failing = servers.filter((server) => server.wrong > 0 || server.errors > 0)
  for (const { scenario, server, wrong, errors, firstWrong } of failing)
    console.log(
      `WRONG in ${scenario} from ${server}: ${wrong} wrong answers, ${errors} errors; first: ${firstWrong ?? '-'}`,
    )
  return failing.length > 0 ? 1 : 0
}

export const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;')

const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / 1048576).toFixed(0))

/** The results as an aligned text table (also valid Markdown). */
export function table(results: ScenarioResult[]): string {
  const rows = [
    [
      'scenario',
      'pets',
      'req/s',
      'ratio to raw',
      'ratio (wrk)',
      'p50 ms',
      'p99 ms',
      'errors',
      'non-2xx',
      'wrong',
      'RSS MB before/after',
    ],
    ...results.map((r) => [
      r.scenario,
      r.pets.toLocaleString('en'),
      Math.round(r.rps).toLocaleString('en'),
      r.ratio === undefined ? '-' : r.ratio.toFixed(2),
      r.wrkRatio === undefined ? '-' : r.wrkRatio.toFixed(2),
      String(r.p50),
      String(r.p99),
      String(r.errors),
      String(r.non2xx),
      String(r.wrong),
      `${mb(r.rssBefore)} / ${mb(r.rssAfter)}`,
    ]),
  ]
  return markdownTable(rows)
}

/** Rows (the first is the header) as an aligned text table, also valid Markdown. */
export function markdownTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)))
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n')
}

/** A horizontal bar chart of req/s per scenario, the service beside its raw baseline, as SVG. */
export function svgChart(report: BenchReport): string {
  const measured = report.results.filter((r) => r.baselineRps !== undefined)
  const max = Math.max(1, ...measured.flatMap((r) => [r.rps, r.baselineRps ?? 0]))
  const left = 150
  const width = 560
  const rowHeight = 44
  const height = 60 + measured.length * rowHeight
  const bars = measured
    .map((r, i) => {
      const y = 40 + i * rowHeight
      const service = (r.rps / max) * width
      const baseline = ((r.baselineRps ?? 0) / max) * width
      return [
        `<text x="${left - 8}" y="${y + 16}" text-anchor="end">${escapeXml(r.scenario)}</text>`,
        `<rect x="${left}" y="${y}" width="${baseline.toFixed(1)}" height="14" fill="#c8ccd4"/>`,
        `<rect x="${left}" y="${y + 16}" width="${service.toFixed(1)}" height="14" fill="#3b7dd8"/>`,
        `<text x="${left + Math.max(service, baseline) + 6}" y="${y + 27}">${Math.round(r.rps).toLocaleString('en')} req/s (${r.ratio?.toFixed(2)} of raw${r.wrkRatio === undefined ? '' : `; wrk ${r.wrkRatio.toFixed(2)}`})</text>`,
      ].join('')
    })
    .join('\n')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 200}" height="${height}" font-family="sans-serif" font-size="12">
<text x="${left}" y="18" font-weight="bold">req/s by scenario: service (blue) against a raw Bun.serve of the same bytes (grey)</text>
<text x="${left}" y="32" fill="#555">${escapeXml(`${report.generator}, ${report.connections} connections, ${report.duration} s x ${report.rounds} rounds, ${report.pinned ? 'pinned' : 'not pinned'}; ${report.machine}`)}</text>
${bars}
</svg>
`
}

/**
 * One group of bars of a chart (a scenario): per server, its value, an
 * optional whisker, and the text beside it; `undefined` leaves the server's place empty.
 */
export interface BarGroup {
  label: string
  bars: ({ value: number; min?: number; max?: number; text: string } | undefined)[]
}

/** Horizontal bars grouped by scenario, one colour per server as the legend names them, as SVG. */
export function groupedBars(chart: {
  title: string
  subtitle: string
  names: string[]
  colours: string[]
  groups: BarGroup[]
  /** Room right of the longest bar for its text. */
  textRoom: number
}): string {
  const { names, colours, groups } = chart
  const max = Math.max(1, ...groups.flatMap((group) => group.bars.map((b) => b?.max ?? b?.value ?? 0)))
  const left = 120
  const width = 520
  const bar = 12
  const groupHeight = names.length * (bar + 2) + 14
  const top = 50 + names.length * 16
  const x = (value: number) => left + (value / max) * width
  const colour = (i: number) => colours[i % colours.length]
  const legend = names
    .map(
      (name, i) =>
        `<rect x="${left}" y="${40 + i * 16}" width="10" height="10" fill="${colour(i)}"/><text x="${left + 16}" y="${49 + i * 16}">${escapeXml(name)}</text>`,
    )
    .join('')
  const drawn = groups
    .map((group, g) => {
      const y0 = top + g * groupHeight
      const bars = group.bars.map((b, i) => {
        if (b === undefined) return ''
        const y = y0 + i * (bar + 2)
        const end = b.max ?? b.value
        return [
          `<rect x="${left}" y="${y}" width="${(x(b.value) - left).toFixed(1)}" height="${bar}" fill="${colour(i)}"/>`,
          b.min === undefined || b.max === undefined
            ? ''
            : `<line x1="${x(b.min).toFixed(1)}" x2="${x(b.max).toFixed(1)}" y1="${y + bar / 2}" y2="${y + bar / 2}" stroke="#222"/>`,
          `<text x="${(x(end) + 4).toFixed(1)}" y="${y + bar - 2}" font-size="10">${b.text}</text>`,
        ].join('')
      })
      return `<text x="${left - 8}" y="${y0 + 12}" text-anchor="end">${escapeXml(group.label)}</text>${bars.join('')}`
    })
    .join('\n')
  const height = top + groups.length * groupHeight + 10
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + chart.textRoom}" height="${height}" font-family="sans-serif" font-size="12">
<text x="${left}" y="18" font-weight="bold">${chart.title}</text>
<text x="${left}" y="32" fill="#555">${escapeXml(chart.subtitle)}</text>
${legend}
${drawn}
</svg>
`
}
