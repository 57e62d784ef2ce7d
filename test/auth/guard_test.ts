import { describe, expect, test } from 'bun:test'
import { isAsync } from 'elysia/compose'
import { challenge, WWW_AUTHENTICATE } from '../../src/auth/guard'
import { generateApiKey } from '../../src/keys/api_key'
import { PLAN_LIMITS } from '../../src/keys/plans'
import type { RateDecision } from '../../src/ratelimit/decision'
import type { RateLimiter } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { BASE, describeEachStore, expectError, FREE, IN_A_FUTURE_MINUTE, makeTestApp } from '../helpers'

/**
 * Asserts a 401 whose challenge is the bare one, or (RFC 6750 §3.1) carries
 * `error` and, as its description, the 401's message.
 */
async function expectUnauthorized(response: Response, error?: 'invalid_token' | 'invalid_request'): Promise<string> {
  expect(WWW_AUTHENTICATE).toBe('Bearer realm="animal-store"')
  const { message } = await expectError(response, 401, 'unauthorized')
  const expected =
    error === undefined
      ? WWW_AUTHENTICATE
      : `${WWW_AUTHENTICATE}, error="${error}", error_description="${message.replaceAll('"', "'")}"`
  expect(response.headers.get('www-authenticate')).toBe(expected)
  return message
}

describeEachStore('authentication under /v1', () => {
  test.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme word "%s"', async (scheme) => {
    const { app, secret } = await makeTestApp()
    const response = await app.handle(
      new Request(`${BASE}/v1/pets`, { headers: { authorization: `${scheme} ${secret}` } }),
    )
    expect(response.status).toBe(200)
  })

  test('refuses a missing header', async () => {
    const { call } = await makeTestApp()
    expect(await expectUnauthorized(await call('GET', '/v1/pets', { key: null }))).toContain('Missing API key')
  })

  test.each([
    ['Basic credentials, with the bare challenge', (key: string) => `Basic ${btoa(`user:${key}`)}`, undefined],
    ['a bare key, with the bare challenge', (key: string) => key, undefined],
    ['an empty bearer, as invalid_request', () => 'Bearer ', 'invalid_request'],
    ['two tokens, as invalid_request', (key: string) => `Bearer ${key} ${key}`, 'invalid_request'],
  ] as const)('refuses %s', async (_, header, error) => {
    const { app, secret } = await makeTestApp()
    const response = await app.handle(new Request(`${BASE}/v1/pets`, { headers: { authorization: header(secret) } }))
    await expectUnauthorized(response, error)
  })

  test('refuses a token that is not shaped like a key', async () => {
    const { call } = await makeTestApp()
    expect(await expectUnauthorized(await call('GET', '/v1/pets', { key: 'letmein' }), 'invalid_token')).toContain(
      'not an Animal Store API key',
    )
  })

  test('refuses a well-formed unknown key, without echoing it', async () => {
    const { call } = await makeTestApp()
    const stranger = generateApiKey()
    const response = await call('GET', '/v1/pets', { key: stranger })
    const message = await expectUnauthorized(response, 'invalid_token')
    expect(message).toBe('The API key is unknown or revoked')
    expect(response.headers.get('www-authenticate')).not.toContain(stranger)
    expect(message).not.toContain(stranger)
  })

  test('refuses a revoked key on the next request', async () => {
    const { call, keys, key } = await makeTestApp()
    expect((await call('GET', '/v1/pets')).status).toBe(200)
    await keys.revoke(key.id)
    await expectUnauthorized(await call('GET', '/v1/pets'), 'invalid_token')
  })

  test('comes before routing: an unknown path without a key is 401, with a key 404', async () => {
    const { call } = await makeTestApp()
    await expectUnauthorized(await call('GET', '/v1/nothing-here', { key: null }))
    await expectError(await call('GET', '/v1/nothing-here'), 404, 'not_found')
  })

  test('comes before validation, parsing and method checks', async () => {
    const { call } = await makeTestApp()
    await expectUnauthorized(await call('GET', '/v1/pets?limit=0', { key: null }))
    await expectUnauthorized(
      await call('POST', '/v1/pets', { key: null, body: '{bad', headers: { 'content-type': 'application/json' } }),
    )
    await expectUnauthorized(await call('DELETE', '/v1/pets', { key: null }))
    await expectUnauthorized(
      await call('POST', '/v1/pets', {
        key: null,
        body: 'x'.repeat(20_000),
        headers: { 'content-type': 'text/plain' },
      }),
    )
  })

  test('does not guard paths outside /v1', async () => {
    const { call } = await makeTestApp()
    await expectError(await call('GET', '/v10/pets', { key: null }), 404, 'not_found')
  })
})

describe('challenge', () => {
  test.each([
    [null, 'Bearer realm="animal-store"'],
    ['Basic abc', 'Bearer realm="animal-store"'],
    [
      'Bearer',
      `Bearer realm="animal-store", error="invalid_request", error_description="The Authorization header must be 'Bearer <key>'"`,
    ],
    [
      'Bearer letmein',
      'Bearer realm="animal-store", error="invalid_token", error_description="The bearer token is not an Animal Store API key"',
    ],
  ])('%p -> %s', (header, expected) => {
    expect(challenge(header)).toBe(expected)
  })
})

describe('the guard as Elysia compiles it', () => {
  /** The in-memory limiter, answering every call with a promise, as a shared one may. */
  function answeringLater(limiter: MemoryRateLimiter): RateLimiter {
    return {
      consume: async (subject, limits, now) => limiter.consume(subject, limits, now),
      peek: async (subject, limits, now) => limiter.peek(subject, limits, now),
      refund: async (subject, limits, countedAt, now) => limiter.refund(subject, limits, countedAt, now),
      reset: async (subject, reset, now) => limiter.reset(subject, reset, now),
    }
  }
  // Elysia compiles the whole request chain as async when one onRequest hook reads as async (bench/README.md).
  const asyncHooks = (app: { event: { request?: unknown[] } }) =>
    (app.event.request ?? []).filter((hook) => isAsync(hook as never)).length

  test('no onRequest hook reads as async to Elysia with a limiter that answers at once', async () => {
    const { app } = await makeTestApp({ limiter: new MemoryRateLimiter() })
    expect(asyncHooks(app)).toBe(0)
  })

  test('with a limiter that may answer later the guard waits before the chain: counted, refused and let through alike', async () => {
    const { app, call } = await makeTestApp(
      { limiter: answeringLater(new MemoryRateLimiter()), clock: () => IN_A_FUTURE_MINUTE },
      FREE,
    )
    expect(asyncHooks(app)).toBe(0)
    const first = await call('GET', '/v1/pets')
    expect(first.status).toBe(200)
    expect(first.headers.get('x-ratelimit-remaining')).toBe(String(PLAN_LIMITS.free.rpm - 1))
    // The wrap around every response still writes its headers before the answer is made, after the wait.
    expect(first.headers.get('x-request-id')).toBeString()
    for (let i = 1; i < PLAN_LIMITS.free.rpm; i++) expect((await call('GET', '/v1/pets')).status).toBe(200)
    await expectError(await call('GET', '/v1/pets'), 429, 'rate_limit_exceeded')
    await expectUnauthorized(await call('GET', '/v1/pets', { key: null }))
  })

  test('a decision such a limiter has at hand (a ban it knows) reaches Bun without a promise; one it waits for, with one', async () => {
    const memory = new MemoryRateLimiter()
    // As the Redis limiter does: a ban it has seen is answered here, anything else after a round trip.
    const banAtHand: RateLimiter = {
      ...answeringLater(memory),
      consume: (subject, limits, now) => {
        const decision = memory.consume(subject, limits, now) as RateDecision
        return decision.refusal === 'key_banned' ? decision : Promise.resolve(decision)
      },
    }
    const { app, secret } = await makeTestApp({ limiter: banAtHand, clock: () => IN_A_FUTURE_MINUTE }, FREE)
    const list = () => app.fetch(new Request(`${BASE}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } }))
    expect(list()).toBeInstanceOf(Promise)
    // Over the limit, then on until the limiter bans the key for going on.
    let codes = ''
    for (let i = 0; i < 3 * PLAN_LIMITS.free.rpm && !codes.endsWith('key_banned'); i++) {
      const answer = await list()
      codes = answer.status === 200 ? 'ok' : ((await answer.json()) as { code: string }).code
    }
    expect(codes).toBe('key_banned')
    const banned = list()
    expect(banned).toBeInstanceOf(Response)
    await expectError(banned as Response, 429, 'key_banned')
    expect((banned as Response).headers.get('x-request-id')).toBeString()
  })
  test('a limiter that says it answers at once but gives a promise is a 500, never a request let through', async () => {
    const memory = new MemoryRateLimiter()
    const lying = Object.assign(answeringLater(memory), { answersAtOnce: true }) as RateLimiter
    const { call, logs } = await makeTestApp({ limiter: lying }, FREE)
    await expectError(await call('GET', '/v1/pets'), 500, 'internal_error')
    expect(logs.some((line) => String(line.error).includes('a limiter that answers at once gave a promise'))).toBe(true)
  })

  test.each([
    [
      'fails at once',
      (): never => {
        throw new Error('limiter on fire')
      },
    ],
    ['fails later', () => Promise.reject(new Error('limiter on fire'))],
  ])(
    'a limiter that %s reaches the error mapper: a 500 Error body, logged, with the safe headers',
    async (_, consume) => {
      const limiter: RateLimiter = { ...answeringLater(new MemoryRateLimiter()), consume }
      const { call, logs } = await makeTestApp({ limiter }, FREE)
      const answer = await call('GET', '/v1/pets')
      await expectError(answer, 500, 'internal_error')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      expect(
        logs.some((line) => line.msg === 'unexpected error' && String(line.error).includes('limiter on fire')),
      ).toBe(true)
    },
  )
})

describeEachStore('requests that cost no quota are bounded too (issue 31)', () => {
  test('a key gets 600 free quota checks and 304s a minute (ten times its plan, at least 600), then 429s', async () => {
    // Ahead of Redis's clock: it expires a window's keys at the window's end.
    let now = Date.UTC(2099, 10, 25, 12, 0, 0)
    const { call } = await makeTestApp({ clock: () => now }, FREE)
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const page = await call('GET', '/v1/pets')
    const etag = page.headers.get('etag') as string
    // Two requests counted so far: the create and the page.
    const statuses: number[] = []
    for (let i = 0; i < 300; i++) statuses.push((await call('GET', '/v1/rate_limit')).status)
    for (let i = 0; i < 300; i++)
      statuses.push((await call('GET', '/v1/pets', { headers: { 'if-none-match': etag } })).status)
    expect(statuses.filter((status) => status === 429)).toEqual([])
    const over = await call('GET', '/v1/rate_limit')
    const error = await expectError(over, 429, 'rate_limit_exceeded')
    expect(error.message).toStartWith(
      'Too many requests that cost no quota (quota checks, conditional GETs): at most 600',
    )
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // The plan's quota is untouched, and its headers still say so.
    expect(over.headers.get('x-ratelimit-limit')).toBe('60')
    expect(over.headers.get('x-ratelimit-remaining')).toBe('58')
    const revalidated = await call('GET', '/v1/pets', { headers: { 'if-none-match': etag } })
    await expectError(revalidated, 429, 'rate_limit_exceeded')
    // Counted requests go on as before, and the next minute the free ones do too.
    expect((await call('GET', '/v1/pets')).status).toBe(200)
    now += 60_000
    expect((await call('GET', '/v1/rate_limit')).status).toBe(200)
  })
})

describe('requests outside /v1 are bounded per address (issue 31)', () => {
  test('600 a minute from one address to the documents and unknown paths, then 429; /health never; another address goes on', async () => {
    let now = Date.UTC(2026, 10, 25, 12, 0, 0)
    const { app } = await makeTestApp({ clock: () => now, trustProxy: true })
    const from = (address: string, path: string) =>
      app.handle(new Request(`${BASE}${path}`, { headers: { 'x-forwarded-for': address } }))
    const statuses: number[] = []
    for (let i = 0; i < 600; i++) statuses.push((await from('10.0.0.1', i % 2 ? '/openapi.json' : '/nowhere')).status)
    expect(statuses.filter((status) => status === 429)).toEqual([])
    const over = await from('10.0.0.1', '/openapi.json')
    const error = await expectError(over, 429, 'rate_limit_exceeded')
    expect(error.message).toStartWith('Too many requests outside /v1 (the documents, unknown paths) from this address')
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    for (let i = 0; i < 700; i++) expect((await from('10.0.0.1', '/health')).status).toBe(200)
    expect((await from('10.0.0.2', '/openapi.json')).status).toBe(200)
    now += 60_000
    expect((await from('10.0.0.1', '/openapi.json')).status).toBe(200)
  })
})
