import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Scenario, ScenarioContext } from './scenarios'

/** Whether wrk is installed (Debian: `apt-get install wrk`). */
export const hasWrk = Bun.which('wrk') !== null

/** What one wrk run measured. wrk does not check answers: autocannon's runs of the same scenario do. */
export interface WrkRun {
  rps: number
  /** Requests completed in the run. */
  requests: number
  /** Connect, read, write and timeout errors. */
  errors: number
}

const lua = JSON.stringify

/**
 * The Lua script that makes wrk send `scenario`'s requests: one fixed request
 * as wrk's static request (its fastest path); a fixed list cycled through
 * (the mixed scenario); or the scenario's own `request()` when its requests
 * vary (a random `after`, a new address each time).
 */
export function wrkScript(scenario: Scenario, context: ScenarioContext): string {
  const requests = scenario.requests(context)
  const [first] = requests
  if (!first) throw new Error(`${scenario.name} has no request`)
  const fixed = [
    `wrk.method = ${lua(first.method ?? 'GET')}`,
    ...(first.path ? [`wrk.path = ${lua(first.path)}`] : []),
    ...Object.entries(first.headers ?? {}).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`),
    ...(first.body === undefined ? [] : [`wrk.body = ${lua(first.body)}`]),
  ]
  if (scenario.wrkRequest) return [...fixed, scenario.wrkRequest(context)].join('\n')
  if (requests.some((request) => request.setupRequest || !request.path))
    throw new Error(`${scenario.name}: its requests vary, so it needs wrkRequest`)
  if (requests.length === 1) return fixed.join('\n')
  const table = (headers: Record<string, string> = {}) =>
    `{${Object.entries(headers)
      .map(([name, value]) => `[${lua(name)}] = ${lua(value)}`)
      .join(', ')}}`
  const formatted = requests.map(
    (request) =>
      `wrk.format(${lua(request.method ?? 'GET')}, ${lua(request.path)}, ${table(request.headers)}, ${request.body === undefined ? 'nil' : lua(request.body)})`,
  )
  return `local requests = {}
local next = 0
init = function(args)
${formatted.map((request, i) => `  requests[${i + 1}] = ${request}`).join('\n')}
end
request = function()
  next = next % #requests + 1
  return requests[next]
end`
}

/** Runs wrk (one thread; this process and so wrk are pinned to the generator's CPU) against `url` with `script`. */
export async function runWrk(
  script: string,
  url: string,
  options: { connections: number; duration: number; work: string },
): Promise<WrkRun> {
  const file = join(options.work, 'wrk.lua')
  writeFileSync(file, `${script}\n`)
  // autocannon's timeout: a slow answer (a write waiting on PostgreSQL's locks) is measured, not an error.
  const wrk = Bun.spawn(
    ['wrk', '-t1', `-c${options.connections}`, `-d${options.duration}s`, '--timeout', '10s', '-s', file, url],
    {
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  const [output, code] = await Promise.all([new Response(wrk.stdout).text(), wrk.exited])
  if (code !== 0) throw new Error(`wrk failed:\n${output}`)
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]
  const requests = /(\d+) requests in/.exec(output)?.[1]
  if (rps === undefined || requests === undefined) throw new Error(`wrk said nothing measurable:\n${output}`)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output)
  const errors = socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  return { rps: Number(rps), requests: Number(requests), errors }
}
