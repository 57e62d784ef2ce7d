import { describe, expect, test } from 'bun:test'
import type { ResponseSet } from '../../src/http/errors'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { applyRateDecision } from '../../src/ratelimit/apply_decision'
import { allowed, type RateDecision, refused } from '../../src/ratelimit/decision'
import { RepeatedRefusal } from '../../src/ratelimit/repeated_refusal'
import { describeEachStore, FREE, FUTURE_MINUTE, makeTestApp } from '../helpers'

const NOW = FUTURE_MINUTE + 30_000
const BAN_END = NOW + 15 * 60_000

/** A set as the wrap leaves it before the guard: its headers, a request id among them. */
function wrapped(requestId: string, more: Record<string, string> = {}): ResponseSet {
  return {
    headers: { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'x-request-id': requestId, ...more },
  }
}

/** The Response of what `apply` gave: itself when it made one, else made from `set` as Elysia makes it. */
function answered(set: ResponseSet, outcome: unknown): Response {
  return outcome instanceof Response ? outcome : Response.json(outcome, set as ResponseInit)
}

/** What an answer carries: its status, its headers in the order Bun sends them, and its body. */
async function carried(response: Response) {
  return { status: response.status, headers: [...response.headers], body: await response.json() }
}

/** The answer applyRateDecision alone gives, to hold the repeated one to. */
function expected(set: ResponseSet, decision: RateDecision) {
  return carried(answered(set, applyRateDecision(set, decision)))
}

function banned(now = NOW): RateDecision {
  return refused('key_banned', 'ban', PLAN_LIMITS.free, 60, BAN_END, now)
}

describe('RepeatedRefusal', () => {
  test('answers a repeated refusal exactly as applyRateDecision does, with the request id of each', async () => {
    const refusals = new RepeatedRefusal()
    const outcomes: unknown[] = []
    for (const id of ['first', 'second', 'first', 'third']) {
      const set = wrapped(id)
      const outcome = refusals.apply(set, banned())
      outcomes.push(outcome)
      const response = answered(set, outcome)
      expect(await carried(response)).toEqual(await expected(wrapped(id), banned()))
      expect(response.headers.get('x-request-id')).toBe(id)
    }
    // The first is answered afresh; the three that repeat it are made at once, with set left as Elysia's defaults.
    expect(outcomes.map((outcome) => outcome instanceof Response)).toEqual([false, true, true, true])
  })

  test("a repeated refusal's Response is made at once and leaves set as Elysia's defaults, so it is not made again", () => {
    const refusals = new RepeatedRefusal()
    refusals.apply(wrapped('a'), banned())
    const set = wrapped('b')
    expect(refusals.apply(set, banned())).toBeInstanceOf(Response)
    expect(set).toEqual({ headers: {}, status: 200 })
  })

  test('refusals applied one after another, their answers read only after the last (a limiter that waits), each keep their own request id', () => {
    const refusals = new RepeatedRefusal()
    const sets = ['a', 'b', 'c', 'd'].map((id) => wrapped(id))
    const outcomes = sets.map((set) => refusals.apply(set, banned()))
    const ids = sets.map((set, i) => answered(set, outcomes[i]).headers.get('x-request-id'))
    expect(ids).toEqual(['a', 'b', 'c', 'd'])
  })

  test('a refusal that differs in any field, or in the headers before it, is answered afresh', async () => {
    const refusals = new RepeatedRefusal()
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
      const outcome = refusals.apply(set, decision)
      expect(outcome).not.toBeInstanceOf(Response)
      expect({ what, ...(await carried(answered(set, outcome))) }).toEqual({
        what,
        ...(await expected(make(), decision)),
      })
    }
  })

  test('a request let through gets the rate-limit headers on its own set, as applyRateDecision writes them', () => {
    const refusals = new RepeatedRefusal()
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

// On PostgreSQL + Redis the refusals come after a wait: each answer is still made in `apply`, before the next.
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
