// The baseline: a raw Bun.serve that answers every request with the exact
// bytes the service gave for the scenario (same status, same headers, same
// body), with no framework and no database. Prints its port on stdout.
//
//   bun bench/baseline_server.ts RESPONSE.json
import { readFileSync } from 'node:fs'

const file = process.argv[2]
if (!file) throw new Error('usage: bun bench/baseline_server.ts RESPONSE.json')
const recorded = JSON.parse(readFileSync(file, 'utf8')) as { status: number; headers: [string, string][]; body: string }
const body = Buffer.from(recorded.body, 'base64')
const init = { status: recorded.status, headers: recorded.headers }
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', reusePort: false, fetch: () => new Response(body, init) })
console.log(`baseline listening on ${server.port}`)
