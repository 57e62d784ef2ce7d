import { expect, test } from 'bun:test'
import { StoreUnavailableError } from '../../src/db/store_unavailable'
import type { PetStore } from '../../src/pets/store'
import { MINUTE_MS } from '../../src/time'
import { describeEachStore, expectError, FREE, FUTURE_MINUTE, json, makeTestApp } from '../helpers'

const T0 = FUTURE_MINUTE
const clock = () => T0 + 1500

const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'))

describeEachStore('conditional requests (If-None-Match)', () => {
  test('a matching If-None-Match gets 304, no body, the ETag and the headers, and costs nothing', async () => {
    const { call } = await makeTestApp({ clock }, FREE)
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const first = await call('GET', '/v1/pets')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    expect(remaining(first)).toBe(58)
    for (const field of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await call('GET', '/v1/pets', { headers: { 'if-none-match': field } })
      expect(again.status).toBe(304)
      expect(await again.text()).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      expect(remaining(again)).toBe(58)
      expect(again.headers.get('x-ratelimit-used')).toBe('2')
      expect(again.headers.get('ratelimit')).toBe('"minute";r=58;t=59')
    }
    const quota = await json(await call('GET', '/v1/rate_limit'))
    expect(quota.minute.used).toBe(2)
    // A tag that does not match is a 200 and counts.
    const other = await call('GET', '/v1/pets', { headers: { 'if-none-match': '"other"' } })
    expect(other.status).toBe(200)
    expect(remaining(other)).toBe(57)
  })

  test('a create that changes the page makes the old ETag a 200 with a new ETag', async () => {
    const { call } = await makeTestApp({ clock })
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const etag = (await call('GET', '/v1/pets')).headers.get('etag')!
    const soldEtag = (await call('GET', '/v1/pets?status=sold')).headers.get('etag')!
    await call('POST', '/v1/pets', { body: { name: 'Tom', categoryId: 2 } })
    const after = await call('GET', '/v1/pets', { headers: { 'if-none-match': etag } })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(etag)
    expect((await json(after)).length).toBe(2)
    // The sold list did not change, so its tag still holds.
    const sold = await call('GET', '/v1/pets?status=sold', { headers: { 'if-none-match': soldEtag } })
    expect(sold.status).toBe(304)
  })

  test('a full page gains a next page: same body, new ETag (the Link changed)', async () => {
    const { call } = await makeTestApp({ clock })
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const full = await call('GET', '/v1/pets?limit=1')
    expect(full.headers.get('link')).toBeNull()
    await call('POST', '/v1/pets', { body: { name: 'Tom', categoryId: 2 } })
    const more = await call('GET', '/v1/pets?limit=1', { headers: { 'if-none-match': full.headers.get('etag')! } })
    expect(more.status).toBe(200)
    expect(more.headers.get('link')).toContain('rel="next"')
  })

  test('getPet has its own ETag, 304 keeps the deprecation headers, and a missing pet is still 404', async () => {
    const { call } = await makeTestApp({ clock }, FREE)
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const pet = await call('GET', '/v1/pets/1')
    const etag = pet.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    const again = await call('GET', '/v1/pets/1', { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('deprecation')).not.toBeNull()
    expect(remaining(again)).toBe(remaining(pet))
    await expectError(await call('GET', '/v1/pets/2', { headers: { 'if-none-match': '*' } }), 404, 'not_found')
    // The 304 was free; the create, the first get and the 404 were not.
    expect((await json(await call('GET', '/v1/rate_limit'))).minute.used).toBe(3)
  })

  test('over its limit, a conditional request is still a 429', async () => {
    const { call } = await makeTestApp({ clock }, FREE)
    const etag = (await call('GET', '/v1/pets')).headers.get('etag')!
    for (let i = 0; i < 59; i++) await call('GET', '/v1/pets')
    const refused = await call('GET', '/v1/pets', { headers: { 'if-none-match': etag } })
    await expectError(refused, 429, 'rate_limit_exceeded')
  })
})

/** A pet store whose every call fails with `error`. */
function failingStore(error: () => Error): PetStore {
  const fail = () => {
    throw error()
  }
  return { list: fail, create: fail, get: fail, update: fail, delete: fail, inventory: fail, answers: () => false }
}

describeEachStore('our own failures cost no quota', () => {
  test.each([
    ['500', () => new Error('boom'), 500, 'internal_error'],
    ['503', () => new StoreUnavailableError('no database'), 503, 'unavailable'],
  ] as const)('a %s leaves the quota and its headers as they were', async (_, error, status, code) => {
    const { call } = await makeTestApp({ clock, pets: failingStore(error) }, FREE)
    for (const [method, path] of [
      ['GET', '/v1/pets'],
      ['GET', '/v1/pets/1'],
      ['POST', '/v1/pets'],
    ] as const) {
      const body = method === 'POST' ? { name: 'Rex', categoryId: 1 } : undefined
      const failed = await call(method, path, { body })
      await expectError(failed, status, code)
      expect(remaining(failed)).toBe(60)
    }
    // A conditional GET that fails was let through uncounted, and stays so.
    const conditional = await call('GET', '/v1/pets', { headers: { 'if-none-match': '"x"' } })
    await expectError(conditional, status, code)
    expect(remaining(conditional)).toBe(60)
    const quota = await json(await call('GET', '/v1/rate_limit'))
    expect([quota.minute.used, quota.day.used]).toEqual([0, 0])
  })

  test('every 4xx still counts, a conditional one too', async () => {
    const { call } = await makeTestApp({ clock }, FREE)
    await call('GET', '/v1/pets/99')
    await call('GET', '/v1/pets?limit=0')
    await call('POST', '/v1/pets', { body: '{' })
    const conditional = { headers: { 'if-none-match': '*' } }
    await expectError(await call('GET', '/v1/pets/99', conditional), 404, 'not_found')
    await expectError(await call('GET', '/v1/pets?limit=0', conditional), 400, 'invalid_request')
    await expectError(await call('GET', '/v1/nothing', conditional), 404, 'not_found')
    await expectError(await call('GET', `/v1/pets?x=${'a'.repeat(9000)}`, conditional), 414, 'uri_too_long')
    const quota = await json(await call('GET', '/v1/rate_limit'))
    expect(quota.minute.used).toBe(7)
  })
})

test('a refund in a later minute gives back the day only', async () => {
  const { MemoryRateLimiter } = await import('../../src/ratelimit/memory_limiter')
  const limiter = new MemoryRateLimiter()
  const free = { rpm: 60, rpd: 1000 }
  limiter.consume(1, free, T0)
  limiter.consume(1, free, T0 + MINUTE_MS)
  expect(limiter.refund(1, free, T0, T0 + MINUTE_MS)).toEqual({ usedMinute: 1, usedDay: 1, banEnd: undefined })
  // Never below zero, and a request refunded twice is a caller's bug the limiter absorbs.
  expect(limiter.refund(1, free, T0 + MINUTE_MS, T0 + MINUTE_MS).usedMinute).toBe(0)
  expect(limiter.refund(1, free, T0 + MINUTE_MS, T0 + MINUTE_MS).usedMinute).toBe(0)
})

describeEachStore('conditional requests over a real port', () => {
  test('200 concurrent requests with a matching If-None-Match all get 304 and leave the count where it was', async () => {
    const { app, secret, call } = await makeTestApp({ clock }, FREE)
    app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    try {
      const url = `http://127.0.0.1:${app.server!.port}/v1/pets`
      const authorization = `Bearer ${secret}`
      const first = await fetch(url, { headers: { authorization } })
      const etag = first.headers.get('etag')!
      await first.arrayBuffer()
      const responses = await Promise.all(
        Array.from({ length: 200 }, () => fetch(url, { headers: { authorization, 'if-none-match': etag } })),
      )
      expect(responses.map((response) => response.status)).toEqual(Array(200).fill(304))
      for (const response of responses) await response.arrayBuffer()
      const quota = await json(await call('GET', '/v1/rate_limit'))
      expect(quota.minute.used).toBe(1)
      // The quota is intact, and a tag that no longer matches is counted as atomically as any request:
      // of 200 at once, exactly the 59 left get a 200, the rest a 429.
      const stale = await Promise.all(
        Array.from({ length: 200 }, () => fetch(url, { headers: { authorization, 'if-none-match': '"stale"' } })),
      )
      const statuses = stale.map((response) => response.status)
      expect(statuses.filter((status) => status === 200)).toHaveLength(59)
      expect(statuses.filter((status) => status === 429)).toHaveLength(141)
      for (const response of stale) await response.arrayBuffer()
    } finally {
      await app.stop()
    }
  })
})
