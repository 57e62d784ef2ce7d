import { expect } from 'bun:test'

/**
 * A strict reading of Prometheus' text format (version 0.0.4): every line
 * is a `# HELP`, a `# TYPE` or a sample `name{label="value",...} number`;
 * every sample belongs to a family announced by HELP and TYPE; returns the
 * samples by their name and labels as written. A value is read as Go's
 * ParseFloat reads it, as the format says: prom-client writes not-a-number
 * as `Nan` (the event-loop lag before its first sample), which the format's
 * documentation names among the valid values.
 */
export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>()
  const types = new Map<string, string>()
  const helped = new Set<string>()
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
  const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`
  const SAMPLE = new RegExp(`^(${NAME})(\\{(?:${LABEL})(?:,${LABEL})*\\})? (-?[0-9.e+-]+|[Nn][Aa][Nn]|\\+Inf|-Inf)$`)
  expect(text.endsWith('\n')).toBe(true)
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue
    const help = /^# HELP (\S+) .+$/.exec(line)
    if (help) {
      helped.add(help[1]!)
      continue
    }
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line)
    if (type) {
      types.set(type[1]!, type[2]!)
      continue
    }
    const sample = SAMPLE.exec(line)
    if (sample === null) throw new Error(`not a line of the exposition format: ${line}`)
    const [, name, labels = '', value] = sample
    const family = types.has(name!) ? name! : name!.replace(/_(bucket|sum|count|total)$/, '')
    if (!types.has(family) && !types.has(name!)) throw new Error(`no TYPE for ${name}`)
    if (!helped.has(family) && !helped.has(name!)) throw new Error(`no HELP for ${name}`)
    samples.set(`${name}${labels}`, Number(value))
  }
  return samples
}
