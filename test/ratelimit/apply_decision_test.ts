import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/app'
import { sqliteStores } from '../../src/backends'
import { DATA_VERSION_CHECK_MS } from '../../src/db/data_version'
import { openDatabase } from '../../src/db/sqlite'
import { issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import { createLogger } from '../../src/log'
import { MINUTE_MS } from '../../src/time'
import { BASE, describeEachStore, expectError, FREE, FUTURE_MINUTE, makeTestApp, tempDir } from '../helpers'

const T0 = FUTURE_MINUTE

function rateHeaders(response: Response) {
  return {
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    reset: response.headers.get('x-ratelimit-reset'),
  }
}

async function freeApp(overrides: Parameters<typeof makeTestApp>[0] = {}) {
  let now = T0 + 1000
  const made = await makeTestApp({ clock: () => now, ...overrides }, FREE)
  return { ...made, advance: (ms: number) => (now += ms) }
}

describeEachStore('X-RateLimit-* headers', () => {
  test('are on every response under /v1, whatever its outcome, and every one counts', async () => {
    const { call } = await freeApp()
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const outcomes: [string, () => Promise<Response>, number][] = [
      ['200 list', () => call('GET', '/v1/pets'), 200],
      ['201 create', () => call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } }), 201],
      ['200 get (deprecated)', () => call('GET', '/v1/pets/1'), 200],
      ['400 bad query', () => call('GET', '/v1/pets?limit=0'), 400],
      ['400 bad path id', () => call('GET', '/v1/pets/abc'), 400],
      ['400 bad body', () => call('POST', '/v1/pets', { body: { name: '' } }), 400],
      [
        '400 malformed JSON',
        () => call('POST', '/v1/pets', { body: '{', headers: { 'content-type': 'application/json' } }),
        400,
      ],
      ['404 unknown pet', () => call('GET', '/v1/pets/999'), 404],
      ['404 unknown path', () => call('GET', '/v1/cats'), 404],
      ['405 wrong method', () => call('DELETE', '/v1/pets'), 405],
      [
        '413 too large',
        () => call('POST', '/v1/pets', { body: 'x'.repeat(17_000), headers: { 'content-type': 'application/json' } }),
        413,
      ],
      ['415 wrong type', () => call('POST', '/v1/pets', { body: 'x', headers: { 'content-type': 'text/plain' } }), 415],
    ]
    let expected = 59 - 1
    for (const [name, send, status] of outcomes) {
      const response = await send()
      expect({ name, status: response.status }).toEqual({ name, status })
      expect({ name, ...rateHeaders(response) }).toEqual({
        name,
        limit: '60',
        remaining: String(expected--),
        reset: String((T0 + MINUTE_MS) / 1000),
      })
    }
  })

  test('are on a 401, counted against the client address', async () => {
    const { call } = await freeApp()
    const first = await call('GET', '/v1/pets', { key: null })
    expect(first.status).toBe(401)
    expect(rateHeaders(first)).toEqual({ limit: '60', remaining: '59', reset: String((T0 + MINUTE_MS) / 1000) })
    expect(rateHeaders(await call('GET', '/v1/pets', { key: 'ask_wrong' }))).toMatchObject({ remaining: '58' })
  })

  test('are not on responses outside /v1', async () => {
    const { call } = await freeApp()
    expect(rateHeaders(await call('GET', '/elsewhere'))).toEqual({ limit: null, remaining: null, reset: null })
  })
})

/**
 * A List of Items (RFC 9651 §3.1) as the rate-limit fields use it: each a
 * String with Integer parameters. Throws on anything else, so a malformed
 * field fails the test.
 */
function parseRateLimitField(value: string): { name: string; params: Record<string, number> }[] {
  const member = /^"([\x20\x21\x23-\x5b\x5d-\x7e]*)"((?:;[a-z*][a-z0-9_.*-]*=-?\d{1,15})*)$/
  return value.split(/[ \t]*,[ \t]*/).map((text) => {
    const match = member.exec(text)
    if (!match) throw new Error(`not a structured-field item: ${text}`)
    const params = Object.fromEntries(
      match[2]!
        .split(';')
        .slice(1)
        .map((pair) => {
          const [key, number] = pair.split('=')
          return [key!, Number(number)]
        }),
    )
    return { name: match[1]!, params }
  })
}

describeEachStore('the window the headers name, and the IETF fields', () => {
  test('name the minute, count what it used, and list both windows of the policy', async () => {
    const { call } = await freeApp()
    await call('GET', '/v1/pets')
    const response = await call('GET', '/v1/pets')
    expect(response.headers.get('x-ratelimit-used')).toBe('2')
    expect(response.headers.get('x-ratelimit-resource')).toBe('minute')
    expect(parseRateLimitField(response.headers.get('ratelimit-policy')!)).toEqual([
      { name: 'minute', params: { q: 60, w: 60 } },
      { name: 'day', params: { q: 1000, w: 86400 } },
    ])
    // 1 s into the minute: 59 s until it ends.
    expect(parseRateLimitField(response.headers.get('ratelimit')!)).toEqual([
      { name: 'minute', params: { r: 58, t: 59 } },
    ])
  })

  test('name the day when it has fewer requests left', async () => {
    const { call, advance } = await freeApp()
    for (let minute = 0; minute < 16; minute++) {
      for (let i = 0; i < 60; i++) await call('GET', '/v1/pets')
      advance(MINUTE_MS)
    }
    // 960 used today: 40 left in the day, 59 in this minute after the next request.
    const response = await call('GET', '/v1/pets')
    expect(rateHeaders(response)).toMatchObject({ limit: '1000', remaining: '39' })
    expect(response.headers.get('x-ratelimit-used')).toBe('961')
    expect(response.headers.get('x-ratelimit-resource')).toBe('day')
    expect(parseRateLimitField(response.headers.get('ratelimit')!)[0]).toMatchObject({ name: 'day', params: { r: 39 } })
  })

  test('on a 429, Retry-After is never earlier than t', async () => {
    const { call, advance } = await freeApp()
    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets')
    for (const step of [0, 12_345, 30_000, 16_000]) {
      advance(step)
      const refused = await call('GET', '/v1/pets')
      expect(refused.status).toBe(429)
      const [field] = parseRateLimitField(refused.headers.get('ratelimit')!)
      expect(field?.params.r).toBe(0)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(field!.params.t!)
    }
  })
})

describeEachStore('429', () => {
  test('refuses the 61st request of a minute with rate_limit_exceeded, Retry-After and Remaining 0', async () => {
    const { call, advance } = await freeApp()
    for (let i = 0; i < 60; i++) expect((await call('GET', '/v1/pets')).status).toBe(200)
    advance(29_500) // 30.5 s into the minute
    const response = await call('GET', '/v1/pets')
    expect(response.headers.get('retry-after')).toBe('30')
    expect(rateHeaders(response)).toEqual({ limit: '60', remaining: '0', reset: String((T0 + MINUTE_MS) / 1000) })
    const error = await expectError(response, 429, 'rate_limit_exceeded')
    expect(error.message).toContain('60 requests per minute')
  })

  test('does not consume quota: the next minute starts full', async () => {
    const { call, advance } = await freeApp()
    for (let i = 0; i < 70; i++) await call('GET', '/v1/pets')
    advance(MINUTE_MS)
    expect(rateHeaders(await call('GET', '/v1/pets')).remaining).toBe('59')
  })

  test('turns into a 15-minute key_banned when the client keeps hammering', async () => {
    const { call, advance } = await freeApp()
    for (let i = 0; i < 120; i++) await call('GET', '/v1/pets')
    const banned = await call('GET', '/v1/pets')
    expect(banned.headers.get('retry-after')).toBe('900')
    await expectError(banned, 429, 'key_banned')
    advance(14 * MINUTE_MS)
    expect((await call('GET', '/v1/pets')).status).toBe(429)
    advance(MINUTE_MS)
    expect((await call('GET', '/v1/pets')).status).toBe(200)
  })

  test('throttles guessing keys per address, at the Free limits', async () => {
    const { call } = await freeApp()
    for (let i = 0; i < 60; i++) expect((await call('GET', '/v1/pets', { key: `ask_guess${i}` })).status).toBe(401)
    await expectError(await call('GET', '/v1/pets', { key: 'ask_one-more' }), 429, 'rate_limit_exceeded')
  })
})

describeEachStore('TRUST_PROXY', () => {
  async function exhaustAnonymous(call: Awaited<ReturnType<typeof freeApp>>['call']) {
    for (let i = 0; i < 60; i++)
      await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': '203.0.113.7' } })
  }

  test('off: a spoofed X-Forwarded-For buys no fresh quota', async () => {
    const { call } = await freeApp({ trustProxy: false })
    await exhaustAnonymous(call)
    const spoofed = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': '198.51.100.1' } })
    expect(spoofed.status).toBe(429)
  })

  test('on: the first X-Forwarded-For hop is the client', async () => {
    const { call } = await freeApp({ trustProxy: true })
    await exhaustAnonymous(call)
    expect(
      (await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' } })).status,
    ).toBe(429)
    const other = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': '198.51.100.1, 10.0.0.1' } })
    expect(other.status).toBe(401)
    expect(rateHeaders(other).remaining).toBe('59')
  })

  test('on: 100 addresses of one IPv6 /64 share one bucket; the next /64 has its own', async () => {
    const { call } = await freeApp({ trustProxy: true })
    for (let i = 1; i <= 60; i++) {
      const answer = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': `2001:db8:5:6::${i}` } })
      expect(answer.status).toBe(401)
    }
    for (let i = 61; i <= 100; i++) {
      const answer = await call('GET', '/v1/pets', {
        key: null,
        headers: { 'x-forwarded-for': `2001:db8:5:6:${i.toString(16)}::1` },
      })
      expect(answer.status).toBe(429)
    }
    const next = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': '2001:db8:5:7::1' } })
    expect(next.status).toBe(401)
  })

  test('on: IPV6_PREFIX=128 counts each IPv6 address alone', async () => {
    const { call } = await freeApp({ trustProxy: true, ipv6Prefix: 128 })
    for (let i = 1; i <= 61; i++) {
      const answer = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': `2001:db8::${i}` } })
      expect(answer.status).toBe(401)
    }
  })

  test.each([
    ['9.8.7.6', ['9.8.7.6:1', '9.8.7.6:100', '[9.8.7.6]', '"9.8.7.6"', '0:0:0:0:0:ffff:9.8.7.6', '::ffff:0908:0706']],
    [
      '2001:db8::7',
      ['2001:DB8::7', '2001:0db8::7', '2001:db8:0:0:0:0:0:7', '[2001:db8::7]', '[2001:db8::7]:443', '2001:db8::7%eth0'],
    ],
  ])('on: every spelling of %s shares its bucket', async (address, spellings) => {
    const { call } = await freeApp({ trustProxy: true })
    for (let i = 0; i < 60; i++) {
      const spelling = [address, ...spellings][i % (spellings.length + 1)]!
      expect((await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': spelling } })).status).toBe(401)
    }
    for (const spelling of spellings) {
      const answer = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': spelling } })
      expect({ spelling, status: answer.status }).toEqual({ spelling, status: 429 })
    }
  })

  test('on: a hop that is not an address counts as the socket peer', async () => {
    const { call } = await freeApp({ trustProxy: true, socketAddress: () => '192.0.2.50' })
    for (let i = 0; i < 60; i++)
      await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': `not-an-address-${i}` } })
    const peer = await call('GET', '/v1/pets', { key: null, headers: { 'x-forwarded-for': '::ffff:192.0.2.50' } })
    expect(peer.status).toBe(429)
  })

  test('on: keyed requests are counted per key, wherever they come from', async () => {
    const { call } = await freeApp({ trustProxy: true })
    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets', { headers: { 'x-forwarded-for': `198.51.100.${i}` } })
    expect((await call('GET', '/v1/pets', { headers: { 'x-forwarded-for': '192.0.2.1' } })).status).toBe(429)
  })
})

describe('key changes on a running server', () => {
  test('a plan change made by another connection applies within DATA_VERSION_CHECK_MS', async () => {
    const workspace = tempDir('animal-store-plan-')
    try {
      const path = `${workspace.dir}/store.sqlite`
      const serverDb = openDatabase(path)
      let now = T0
      const keys = new SqliteKeyStore(serverDb, { clock: () => now })
      const app = createApp({
        ...sqliteStores(serverDb),
        keys,
        clock: () => now,
        logger: createLogger('silent'),
      })
      const cli = new SqliteKeyStore(openDatabase(path))
      const { key, secret } = await issueKey(cli, FREE)
      const get = () => app.handle(new Request(`${BASE}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } }))
      for (let i = 0; i < 60; i++) await get()
      expect((await get()).status).toBe(429)
      cli.setPlan(key.id, 'pro', { rpm: 300, rpd: 10_000 })
      now += DATA_VERSION_CHECK_MS
      const upgraded = await get()
      expect(upgraded.status).toBe(200)
      expect(rateHeaders(upgraded)).toMatchObject({ limit: '300', remaining: '239' })
      cli.revoke(key.id)
      now += DATA_VERSION_CHECK_MS
      await expectError(await get(), 401, 'unauthorized')
    } finally {
      workspace.cleanup()
    }
  })
})

describe('over a real port', () => {
  test('200 concurrent requests with one fresh Free key get exactly 60 answers and 140 × 429, all with the headers', async () => {
    const db = openDatabase(':memory:')
    const keys = new SqliteKeyStore(db)
    const { secret } = await issueKey(keys, FREE)
    const app = createApp({ ...sqliteStores(db), keys, clock: () => T0 + 1000, logger: createLogger('silent') })
    app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    try {
      const url = `http://127.0.0.1:${app.server!.port}/v1/pets`
      const responses = await Promise.all(
        Array.from({ length: 200 }, () => fetch(url, { headers: { authorization: `Bearer ${secret}` } })),
      )
      const statuses = responses.map((r) => r.status)
      expect(statuses.filter((s) => s === 200)).toHaveLength(60)
      expect(statuses.filter((s) => s === 429)).toHaveLength(140)
      for (const response of responses) {
        const headers = rateHeaders(response)
        expect(headers.limit).toMatch(/^\d+$/)
        expect(headers.remaining).toMatch(/^\d+$/)
        expect(headers.reset).toMatch(/^\d+$/)
        if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        await response.arrayBuffer()
      }
    } finally {
      await app.stop()
    }
  })

  test('counts anonymous requests per socket address', async () => {
    const db = openDatabase(':memory:')
    const app = createApp({
      ...sqliteStores(db),
      clock: () => T0 + 1000,
      logger: createLogger('silent'),
    })
    app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    try {
      const url = `http://127.0.0.1:${app.server!.port}/v1/pets`
      const statuses: number[] = []
      for (let i = 0; i < 61; i++)
        statuses.push((await fetch(url, { headers: { 'x-forwarded-for': `10.0.0.${i}` } })).status)
      expect(statuses.slice(0, 60).every((s) => s === 401)).toBe(true)
      expect(statuses[60]).toBe(429)
    } finally {
      await app.stop()
    }
  })
})
