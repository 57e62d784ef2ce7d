import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { isApiPath } from '../../src/http/url'
import { BASE, describeEachStore, makeTestApp } from '../helpers'
import { REGRESSIONS } from './regressions'
import { type HostileRequest, hostileRequests } from './requests'

// About a minute on a 2-core machine (400,000 runs); FUZZ_RUNS=2000000 for a longer hunt, FUZZ_SEED to replay one.
const RUNS = Number(process.env.FUZZ_RUNS ?? 400_000)
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

type TestApp = Awaited<ReturnType<typeof makeTestApp>>

function toRequest(hostile: HostileRequest, key?: string): Request {
  const url = BASE + hostile.path + (hostile.query ? `?${hostile.query}` : '')
  const headers = new Headers(hostile.headers.map(([name, value]) => [name, value.replaceAll('{key}', key ?? '')]))
  return new Request(url, { method: hostile.method, headers, body: hostile.body })
}

/** The properties every answer must have; throws (via expect) when one does not hold. */
async function checkAnswer(made: TestApp, hostile: HostileRequest): Promise<void> {
  const request = toRequest(hostile, made.secret)
  const path = new URL(request.url).pathname
  const response = await made.app.handle(request)
  const describe = `${hostile.method} ${request.url.slice(0, 200)} -> ${response.status}`
  expect({ describe, serverError: response.status >= 500 }).toEqual({ describe, serverError: false })
  expect(response.headers.get('x-request-id')).toBeTruthy()
  if (isApiPath(path)) {
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect({ describe, name, value: response.headers.get(name) }).toEqual({
        describe,
        name,
        value: expect.stringMatching(/^\d+$/),
      })
    }
  }
  if (hostile.method === 'HEAD') return
  const text = await response.text()
  if (response.status >= 400) {
    expect(response.headers.get('content-type')).toStartWith('application/json')
    const body = JSON.parse(text)
    const keys = Object.keys(body)
    expect({ describe, keys: keys.slice(0, 3) }).toEqual({ describe, keys: ['code', 'message', 'status'] })
    // Beyond them only the field at fault and, for a validation, every violation: the first is the message's.
    expect({ describe, more: keys.slice(3).filter((key) => key !== 'param' && key !== 'errors') }).toEqual({
      describe,
      more: [],
    })
    if (body.errors !== undefined)
      expect({ describe, first: body.errors[0] }).toEqual({
        describe,
        first: { param: body.param, message: body.message },
      })
    expect({ describe, status: body.status, code: typeof body.code, message: typeof body.message }).toEqual({
      describe,
      status: response.status,
      code: 'string',
      message: 'string',
    })
  }
  const read = (pathname: string) =>
    made.app.handle(new Request(BASE + pathname, { headers: { authorization: `Bearer ${made.secret}` } }))
  const onOrders = path.startsWith('/v1/store/orders')
  if (onOrders && (response.status === 201 || (hostile.method === 'PATCH' && response.status === 200))) {
    const order = JSON.parse(text)
    const sent = JSON.parse(typeof hostile.body === 'string' ? hostile.body : new TextDecoder().decode(hostile.body))
    // A placement reserves the pet sent; an end is the status sent, and the pet follows it.
    const expected = response.status === 201 ? { petId: sent.petId, status: 'placed' } : { status: sent.status }
    expect({ describe, order }).toEqual({ describe, order: expect.objectContaining(expected) })
    const fetched = await read(`/v1/store/orders/${order.id}`)
    expect(await fetched.json()).toEqual(order)
    const pet = (await (await read(`/v1/pets/${order.petId}`)).json()) as { status: string }
    const petStatus: Record<string, string> = { placed: 'pending', delivered: 'sold', cancelled: 'available' }
    // A cancelled order's pet may have moved on since (ordered again, sold); a placed or delivered one's may not.
    if (order.status !== 'cancelled')
      expect({ describe, pet: pet.status }).toEqual({ describe, pet: petStatus[order.status] as string })
    return
  }
  if (response.status === 201 || (hostile.method === 'PATCH' && response.status === 200)) {
    const answered = JSON.parse(text)
    // Nothing sent is lost or altered on the way in: a create stores every field, a change the ones it names.
    const sent = JSON.parse(typeof hostile.body === 'string' ? hostile.body : new TextDecoder().decode(hostile.body))
    const stored = { name: answered.name, categoryId: answered.categoryId, status: answered.status }
    const expected =
      response.status === 201
        ? { name: sent.name, categoryId: sent.categoryId, status: sent.status ?? 'available' }
        : { ...stored, ...sent }
    expect({ describe, stored }).toEqual({ describe, stored: expected })
    // The answer is what a read returns next, ETag included.
    const fetched = await read(`/v1/pets/${answered.id}`)
    expect(await fetched.json()).toEqual(answered)
    if (response.status === 200) expect(fetched.headers.get('etag')).toBe(response.headers.get('etag'))
  }
  if (hostile.method === 'DELETE' && response.status === 204) {
    expect({ describe, afterwards: (await read(path)).status }).toEqual({ describe, afterwards: 404 })
  }
}

// On a SQLite file too, whose reads share one snapshot a turn on a connection of their own (db/turn_reads.ts).
describeEachStore(
  'fuzzing the app with hostile requests',
  (kind) => {
    // Every request is a round trip to PostgreSQL and Redis there, and every write a sync to the file: a tenth of
    // the runs (11 s in a CI run here on PostgreSQL) keeps the suite short.
    const runs = kind === 'sqlite' ? RUNS : Math.ceil(RUNS / 10)
    test(`${runs} generated requests: never a 5xx, every 4xx an Error body, rate-limit headers under /v1, a 201 or 200 is what GET returns, a 204 leaves a 404`, async () => {
      const made = await makeTestApp()
      await fc.assert(
        fc.asyncProperty(hostileRequests(made.secret), (hostile) => checkAnswer(made, hostile)),
        { numRuns: runs, seed: SEED },
      )
    }, 600_000)

    test.each(REGRESSIONS.map((regression) => [regression.found, regression.request] as const))(
      'regression: %s',
      async (_, hostile) => {
        await checkAnswer(await makeTestApp(), hostile)
      },
    )
  },
  { sqliteFile: true },
)
