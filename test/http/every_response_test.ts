import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { everyResponse, type ResponseStep } from '../../src/http/every_response'
import { asHandle } from '../../src/http/hand_over'

const BASE = 'http://localhost'

/** A step that names each request, and notes what it finished. */
function namingStep(finished: string[]): ResponseStep<string> {
  let made = 0
  return {
    start: () => `request-${++made}`,
    headers(headers, _request, name) {
      headers['x-name'] = name
      headers['x-kind'] = 'step'
    },
    finish(_request, response, name) {
      finished.push(`${name} ${response.status}`)
      return response
    },
  }
}

describe('everyResponse', () => {
  test("a step's headers are in Elysia's set before a hook or a route runs, and theirs win", async () => {
    const finished: string[] = []
    const seen: unknown[] = []
    const app = new Elysia()
      .use(everyResponse('steps', [namingStep(finished)]))
      .onRequest(({ set }) => {
        seen.push(set.headers['x-name'])
      })
      .get('/route', ({ set }) => {
        seen.push(set.headers['x-name'])
        set.headers['x-kind'] = 'route'
        return 'ok'
      })
    const response = await app.handle(new Request(`${BASE}/route`))
    expect(seen).toEqual(['request-1', 'request-1'])
    expect(response.headers.get('x-name')).toBe('request-1')
    expect(response.headers.get('x-kind')).toBe('route')
    expect(finished).toEqual(['request-1 200'])
  })

  test('an answer made before Elysia gets the headers it lacks, keeping its own', async () => {
    const finished: string[] = []
    // Used first, so the steps wrap it, as they wrap CORS (src/app.ts): it answers without reaching a hook.
    const early = new Elysia({ name: 'early' }).wrap((handle) => (request: Request) => {
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { 'x-kind': 'early' } })
      return (handle as unknown as (request: Request) => Response)(request)
    })
    const app = new Elysia()
      .use(early)
      .use(everyResponse('steps', [namingStep(finished)]))
      .get('/route', () => 'ok')
    const answered = await app.handle(new Request(`${BASE}/route`, { method: 'OPTIONS' }))
    expect(answered.status).toBe(204)
    expect(answered.headers.get('x-name')).toBe('request-1')
    expect(answered.headers.get('x-kind')).toBe('early')
    const routed = await app.handle(new Request(`${BASE}/route`))
    expect([routed.headers.get('x-name'), routed.headers.get('x-kind')]).toEqual(['request-2', 'step'])
    expect(finished).toEqual(['request-1 204', 'request-2 200'])
  })

  test('behind a wrap inside it that waits before the chain (the guard on Redis), the headers are still written first', async () => {
    const finished: string[] = []
    const seen: unknown[] = []
    // Used first, so the steps wrap it, as they wrap the guard's decision (src/app.ts).
    const waiting = new Elysia({ name: 'waiting' }).wrap(
      (handle) => (request: Request) => Bun.sleep(1).then(() => asHandle(handle)(request)),
    )
    const app = new Elysia()
      .use(waiting)
      .use(everyResponse('steps', [namingStep(finished)]))
      .onRequest(({ set }) => {
        seen.push(set.headers['x-name'])
      })
      .get('/route', () => 'ok')
    const [first, second] = await Promise.all([
      app.handle(new Request(`${BASE}/route`)),
      app.handle(new Request(`${BASE}/route`)),
    ])
    expect(seen.toSorted()).toEqual(['request-1', 'request-2'])
    expect([first?.headers.get('x-name'), second?.headers.get('x-name')]).toEqual(['request-1', 'request-2'])
    expect(finished.toSorted()).toEqual(['request-1 200', 'request-2 200'])
  })

  test('steps start in order and finish in reverse, early refusals and unknown paths included', async () => {
    const order: string[] = []
    const step = (name: string): ResponseStep => ({
      start: () => order.push(`start ${name}`),
      finish(_request, response) {
        order.push(`finish ${name} ${response.status}`)
        return response
      },
    })
    const app = new Elysia()
      .use(everyResponse('steps', [step('a'), step('b')]))
      .onRequest(({ request, set }) => {
        if (request.headers.has('x-refuse')) {
          set.status = 429
          return 'no'
        }
      })
      .get('/route', () => 'ok')
    await app.handle(new Request(`${BASE}/route`, { headers: { 'x-refuse': '1' } }))
    await app.handle(new Request(`${BASE}/nowhere`))
    expect(order).toEqual([
      'start a',
      'start b',
      'finish b 429',
      'finish a 429',
      'start a',
      'start b',
      'finish b 404',
      'finish a 404',
    ])
  })
})
