import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Scenario, ScenarioContext } from './scenarios'

/** Whether wrk is installed; its ratios are reported beside autocannon's when it is. */
export const hasWrk = Bun.which('wrk') !== null

/**
 * req/s of one wrk run of `scenario`, or undefined for scenarios whose
 * requests change from one to the next (wrk sends one fixed request here).
 * wrk does not check answers: autocannon's runs of the same scenario do.
 */
export async function runWrk(
  scenario: Scenario,
  context: ScenarioContext,
  url: string,
  options: { connections: number; duration: number; work: string },
): Promise<number | undefined> {
  const requests = scenario.requests(context)
  const [request] = requests
  if (!request || requests.length !== 1 || request.setupRequest || !request.path) return undefined
  const script = join(options.work, 'wrk.lua')
  const lua = [
    `wrk.method = ${JSON.stringify(request.method ?? 'GET')}`,
    ...Object.entries(request.headers ?? {}).map(
      ([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`,
    ),
    request.body === undefined ? '' : `wrk.body = ${JSON.stringify(request.body)}`,
  ]
  writeFileSync(script, `${lua.join('\n')}\n`)
  // This process is pinned to CPU 1 already; wrk inherits that.
  const wrk = Bun.spawn(
    ['wrk', '-t1', `-c${options.connections}`, `-d${options.duration}s`, '-s', script, url + request.path],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const [output, code] = await Promise.all([new Response(wrk.stdout).text(), wrk.exited])
  if (code !== 0) throw new Error(`wrk failed:\n${output}`)
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]
  return rps === undefined ? undefined : Number(rps)
}
