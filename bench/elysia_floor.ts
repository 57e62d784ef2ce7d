// The floor of the one-Elysia-app design: an Elysia app that answers every
// request with the exact bytes the service gave for a scenario, the way the
// service builds an answer (rate-limit headers written into `set.headers`
// by an `onRequest` hook, the rest by the route, Elysia making the Response),
// but with no work at all: no key, no limiter, no store, constant values.
// What it costs above raw Bun (bench/baseline_server.ts) is what Elysia and
// the answer's headers cost before the service does anything; the service
// cannot be cheaper than this while it answers through Elysia's `set`.
//
//   bun bench/elysia_floor.ts RESPONSE.json      (prints "floor listening on PORT")
import { readFileSync } from 'node:fs'
import { Elysia } from 'elysia'

const file = process.argv[2]
if (!file) throw new Error('usage: bun bench/elysia_floor.ts RESPONSE.json')
const recorded = JSON.parse(readFileSync(file, 'utf8')) as { status: number; headers: [string, string][]; body: string }
const body = Buffer.from(recorded.body, 'base64').toString('utf8')
// The guard's headers (and a refusal's Retry-After) come from the hook; the others from the route.
const fromGuard = (name: string) => /^(x-ratelimit-|ratelimit|retry-after)/.test(name)
const guardHeaders = recorded.headers.filter(([name]) => fromGuard(name))
const routeHeaders = recorded.headers.filter(
  ([name]) => !fromGuard(name) && name !== 'content-length' && name !== 'date',
)
const refused = recorded.status >= 400

const app = new Elysia()
  .onRequest(({ set }) => {
    for (const [name, value] of guardHeaders) set.headers[name] = value
    if (!refused) return
    set.status = recorded.status
    for (const [name, value] of routeHeaders) set.headers[name] = value
    return body
  })
  // Every method: the create scenario's POST too.
  .all('/v1/pets', ({ set }) => {
    for (const [name, value] of routeHeaders) set.headers[name] = value
    return body
  })
  .listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
console.log(`floor listening on ${app.server?.port}`)
