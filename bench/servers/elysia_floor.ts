// The floor of the one-Elysia-app design: an Elysia app that answers every
// request with the exact bytes the service gave for a scenario, the way the
// service builds an answer (rate-limit headers written into `set.headers`
// by an `onRequest` hook, the rest by the route, Elysia making the Response),
// but with no work at all: no key, no limiter, no store, constant values.
// What it costs above raw Bun (bench/servers/baseline_server.ts) is what Elysia and
// the answer's headers cost before the service does anything; the service
// cannot be cheaper than this while it answers through Elysia's `set`.
//
// FLOOR_WITH adds, one by one, the shapes the service's app has, still with
// no work in them (bench/probes/floor_breakdown.ts measures each):
//   async   the hook is async, as the guard is
//   query   the route validates limit/status/after with the service's schema and transform
//   hooks   two more onRequest hooks (a path check, a walk over the request headers) and an onError
//   wrap    a wrap that sets a header on the response, as the request log does
//   server  served by a Bun.serve of its own calling app.fetch, as src/http/listener.ts does,
//           instead of Elysia's listen (which routes in Bun's native router)
//
//   [FLOOR_WITH=async,query,...] bun bench/servers/elysia_floor.ts RESPONSE.json   (prints "floor listening on PORT")
import { readFileSync } from 'node:fs'
import { Elysia } from 'elysia'
import { integerFromText } from '../../src/http/integer_text'
import { ListPetsQuery } from '../../src/pets/schema'

export const FLOOR_SHAPES = ['async', 'query', 'hooks', 'wrap', 'server'] as const
export type FloorShape = (typeof FLOOR_SHAPES)[number]

/** An answer of the service as bench/lib/load.ts records it: the body in base64. */
export interface RecordedAnswer {
  status: number
  headers: [string, string][]
  body: string
}

type Set = { headers: Record<string, string | number>; status?: number | string }

/** The floor app for `recorded`, with the shapes named in `shapes` but the server's (which only `serve` has). */
export function floorApp(recorded: RecordedAnswer, shapes: ReadonlySet<FloorShape> = new Set()) {
  const body = Buffer.from(recorded.body, 'base64').toString('utf8')
  // The guard's headers (and a refusal's Retry-After) come from the hook; the others from the route.
  const fromGuard = (name: string) => /^(x-ratelimit-|ratelimit|retry-after)/.test(name)
  const guardHeaders = recorded.headers.filter(([name]) => fromGuard(name))
  const routeHeaders = recorded.headers.filter(
    ([name]) => !fromGuard(name) && name !== 'content-length' && name !== 'date',
  )
  const requestId = recorded.headers.find(([name]) => name === 'x-request-id')?.[1] ?? 'floor-1'
  const refused = recorded.status >= 400

  function guard({ set }: { set: Set }): string | undefined {
    for (const [name, value] of guardHeaders) set.headers[name] = value
    if (!refused) return
    set.status = recorded.status
    for (const [name, value] of routeHeaders) set.headers[name] = value
    return body
  }
  function route({ set }: { set: Set }): string {
    for (const [name, value] of routeHeaders) set.headers[name] = value
    return body
  }

  // Each shape a plugin, as the service's app is built (src/app.ts); an empty one where the shape is off.
  const none = (name: string) => new Elysia({ name })
  const wrap = new Elysia({ name: 'floor-wrap' }).wrap((handle) => (request: Request) => {
    const answered = (handle as unknown as (request: Request) => Response | Promise<Response>)(request)
    const finish = (response: Response) => {
      response.headers.set('x-request-id', requestId)
      return response
    }
    return answered instanceof Promise ? answered.then(finish) : finish(answered)
  })
  const pathCheck = new Elysia({ name: 'floor-path-check' })
    .onError(() => undefined)
    .onRequest(({ request }) => {
      if (request.url.includes('/v1/pets/')) return
    })
  const headerWalk = new Elysia({ name: 'floor-header-walk' }).onRequest(({ request }) => {
    let bytes = 0
    request.headers.forEach((value, name) => {
      bytes += name.length + value.length
    })
    if (bytes < 0) return 'never'
  })
  const guarded = new Elysia({ name: 'floor-guard' }).onRequest(
    shapes.has('async') ? async (context) => guard(context) : guard,
  )
  const app = new Elysia({ normalize: false })
    .use(shapes.has('wrap') ? wrap : none('no-wrap'))
    .use(shapes.has('hooks') ? pathCheck : none('no-path-check'))
    .use(guarded)
    .use(shapes.has('hooks') ? headerWalk : none('no-header-walk'))
  // Every method: the create scenario's POST too.
  return shapes.has('query')
    ? app.all('/v1/pets', route, {
        query: ListPetsQuery,
        transform({ query }) {
          if (query.limit !== undefined) query.limit = integerFromText(query.limit) as number
          if (query.after !== undefined) query.after = integerFromText(query.after) as number
        },
      })
    : app.all('/v1/pets', route)
}

if (import.meta.main) {
  const file = process.argv[2]
  if (!file)
    throw new Error('usage: [FLOOR_WITH=async,query,hooks,wrap,server] bun bench/servers/elysia_floor.ts RESPONSE.json')
  const named = (process.env.FLOOR_WITH ?? '').split(',').filter(Boolean)
  for (const shape of named)
    if (!(FLOOR_SHAPES as readonly string[]).includes(shape))
      throw new Error(`FLOOR_WITH: "${shape}" is not one of ${FLOOR_SHAPES}`)
  const shapes = new Set(named as FloorShape[])
  const served = floorApp(JSON.parse(readFileSync(file, 'utf8')) as RecordedAnswer, shapes)
  if (shapes.has('server')) {
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      reusePort: false,
      fetch: (request) => served.fetch(request),
    })
    console.log(`floor listening on ${server.port}`)
  } else {
    served.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    console.log(`floor listening on ${served.server?.port}`)
  }
}
