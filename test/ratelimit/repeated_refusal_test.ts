import { describe, expect, test } from 'bun:test'
import type { ResponseSet } from '../../src/http/errors'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { applyRateDecision } from '../../src/ratelimit/apply_decision'
import { allowed, type RateDecision, refused } from '../../src/ratelimit/decision'
import { RepeatedRefusal } from '../../src/ratelimit/repeated_refusal'
import { describeEachStore, FREE, makeTestApp } from '../helpers'

const NOW = Date.UTC(2099, 10, 21, 10, 0, 30)
const BAN_END = NOW + 15 * 60_000

/** A set as the wrap leaves it before the guard: its headers, a request id among them. */
function wrapped(requestId: string, more: Record<string, string> = {}): ResponseSet {
  return {
    headers: { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'x-request-id': requestId, ...more },
  }
}

/** What a Response made from `set` carries, as Elysia makes it. */
function answered(set: ResponseSet, body: unknown): Response {
  return Response.json(body, set as ResponseInit)
}

/** The answer applyRateDecision alone gives, to hold the repeated one to. */
function expected(set: ResponseSet, decision: RateDecision) {
  const body = applyRateDecision(set, decision)
  const response = answered(set, body)
  return { body, status: response.status, headers: [...response.headers] }
}

function banned(now = NOW): RateDecision {
  return refused('key_banned', 'ban', PLAN_LIMITS.free, 60, BAN_END, now)
}

/** Both ways a limiter answers: at once (in memory), or after a wait (Redis), when answers are made later. */
const LIMITERS: [string, boolean][] = [
  ['at once', true],
  ['after a wait', false],
]

describe('RepeatedRefusal', () => {
  test.each(LIMITERS)(
    'answers a repeated refusal exactly as applyRateDecision does, with the request id of each (a limiter answering %s)',
    (_, atOnce) => {
      const refusals = new RepeatedRefusal(atOnce)
      for (const id of ['first', 'second', 'first', 'third']) {
        const set = wrapped(id)
        const body = refusals.apply(set, banned())
        const response = answered(set, body)
        expect({ body, status: response.status, headers: [...response.headers] }).toEqual(
          expected(wrapped(id), banned()),
        )
        expect(response.headers.get('x-request-id')).toBe(id)
      }
    },
  )

  test('refusals applied before any of their answers is made (a limiter that waits) each keep their own request id', () => {
    const refusals = new RepeatedRefusal(false)
    const sets = ['a', 'b', 'c'].map((id) => wrapped(id))
    const bodies = sets.map((set) => refusals.apply(set, banned()))
    const ids = sets.map((set, i) => answered(set, bodies[i]).headers.get('x-request-id'))
    expect(ids).toEqual(['a', 'b', 'c'])
  })

  test.each(LIMITERS)(
    'a refusal that differs in any field, or in the headers before it, is answered afresh (a limiter answering %s)',
    (_, atOnce) => {
      const refusals = new RepeatedRefusal(atOnce)
      refusals.apply(wrapped('a'), banned())
      const cases: [string, () => ResponseSet, RateDecision][] = [
        ['a second later', () => wrapped('b'), banned(NOW + 1000)],
        [
          'another refusal',
          () => wrapped('c'),
          refused('rate_limit_exceeded', 'minute', PLAN_LIMITS.free, 60, NOW + 30_000, NOW),
        ],
        ['another header before it', () => wrapped('d', { 'strict-transport-security': 'max-age=1' }), banned()],
        ['one header fewer before it', () => ({ headers: { 'x-request-id': 'e' } }), banned()],
      ]
      for (const [what, make, decision] of cases) {
        const set = make()
        const body = refusals.apply(set, decision)
        const response = answered(set, body)
        expect({ what, body, status: response.status, headers: [...response.headers] }).toEqual({
          what,
          ...expected(make(), decision),
        })
      }
    },
  )

  test('a request let through gets the rate-limit headers on its own set, as applyRateDecision writes them', () => {
    const refusals = new RepeatedRefusal(true)
    refusals.apply(wrapped('a'), banned())
    const decision = allowed(1, 1, PLAN_LIMITS.free, NOW + 30_000, NOW + 86_400_000, NOW)
    const set = wrapped('b')
    expect(refusals.apply(set, decision)).toBeUndefined()
    const alone = wrapped('b')
    applyRateDecision(alone, decision)
    expect(set).toEqual(alone)
  })
})

test('a client hammering after its 429 gets each answer with its own request id and the same rate-limit headers', async () => {
  let now = NOW
  const { call } = await makeTestApp({ clock: () => now }, FREE)
  for (let i = 0; i < 2 * PLAN_LIMITS.free.rpm + 1; i++) await call('GET', '/v1/pets')
  const first = await call('GET', '/v1/pets', { headers: { 'x-request-id': 'one' } })
  const second = await call('GET', '/v1/pets', { headers: { 'x-request-id': 'two' } })
  const withoutId = (response: Response) => [...response.headers].filter(([name]) => name !== 'x-request-id')
  expect(first.status).toBe(429)
  expect(await second.json()).toEqual(await first.json())
  expect(withoutId(second)).toEqual(withoutId(first))
  expect([first.headers.get('x-request-id'), second.headers.get('x-request-id')]).toEqual(['one', 'two'])
  now += 1000
  const later = await call('GET', '/v1/pets')
  expect(Number(later.headers.get('retry-after'))).toBe(Number(first.headers.get('retry-after')) - 1)
})

// On PostgreSQL + Redis the refusals come after a wait. Through the app each answer has so far been made before
// the next decision was applied (the version that shared its Headers with every answer passed this test too), so
// the unit test of refusals applied before any answer is made is the one that holds the copy in place.
describeEachStore('refusals answered together', () => {
  test('concurrent requests over the limit each get their own request id on their 429', async () => {
    const { call } = await makeTestApp({ clock: () => NOW }, FREE)
    for (let i = 0; i < PLAN_LIMITS.free.rpm; i++) await call('GET', '/v1/pets')
    const ids = Array.from({ length: 20 }, (_, i) => `together-${i}`)
    const answers = await Promise.all(ids.map((id) => call('GET', '/v1/pets', { headers: { 'x-request-id': id } })))
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 429))
    expect(answers.map((answer) => answer.headers.get('x-request-id'))).toEqual(ids)
  })
})
