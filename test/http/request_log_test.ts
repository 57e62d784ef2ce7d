import { describe, expect, test } from 'bun:test'
import { MAX_LOGGED_USER_AGENT } from '../../src/http/request_log'
import { hashApiKey } from '../../src/keys/api_key'
import { createLogger } from '../../src/log'
import { describeEachStore, FREE, IN_A_FUTURE_MINUTE, makeTestApp } from '../helpers'

// A new id: the process's random prefix, then a counter in base 36.
const NEW_ID = /^[0-9a-f]{8}-[0-9a-z]+$/

describeEachStore('X-Request-Id', () => {
  test('is on every response, early refusals and paths outside /v1 included', async () => {
    const { call } = await makeTestApp({ clock: () => IN_A_FUTURE_MINUTE }, FREE)
    const responses = [
      await call('GET', '/v1/pets'),
      await call('GET', '/v1/pets', { key: null }),
      await call('GET', '/v1/pets?limit=0'),
      await call('DELETE', '/v1/pets'),
      await call('GET', '/nowhere', { key: null }),
      await call('GET', '/health', { key: null }),
      await call('GET', '/openapi.json', { key: null }),
      await call('GET', '/docs', { key: null }),
    ]
    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets')
    responses.push(await call('GET', '/v1/pets'))
    expect(responses.at(-1)!.status).toBe(429)
    for (const response of responses) expect(response.headers.get('x-request-id')).toMatch(NEW_ID)
    expect(new Set(responses.map((r) => r.headers.get('x-request-id'))).size).toBe(responses.length)
  })

  test.each(['abc-123', 'req_01HZX.9:2', 'x'.repeat(128)])('keeps the sane id "%s" a caller sends', async (id) => {
    const { call } = await makeTestApp()
    expect((await call('GET', '/v1/pets', { headers: { 'x-request-id': id } })).headers.get('x-request-id')).toBe(id)
  })

  test.each(['', 'has space', 'x'.repeat(129), '<script>', 'a"b'])('replaces the unsafe id "%s"', async (id) => {
    const { call } = await makeTestApp()
    expect((await call('GET', '/v1/pets', { headers: { 'x-request-id': id } })).headers.get('x-request-id')).toMatch(
      NEW_ID,
    )
  })
})

describeEachStore('the request log', () => {
  test('writes one JSON line per request with method, path, status, duration, request id and key id', async () => {
    const { call, logs, key } = await makeTestApp()
    const response = await call('GET', '/v1/pets?limit=5')
    await call('GET', '/v1/pets', { key: null })
    expect(logs).toHaveLength(2)
    expect(logs[0]).toEqual({
      time: expect.any(String),
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/v1/pets',
      status: 200,
      durationMs: expect.any(Number),
      requestId: response.headers.get('x-request-id'),
      keyId: key.id,
    })
    expect(logs[1]).toMatchObject({ status: 401, path: '/v1/pets' })
    expect(logs[1]!.keyId).toBeUndefined()
  })

  test('never contains the key or its hash', async () => {
    const { call, logs, secret } = await makeTestApp()
    await call('GET', '/v1/pets')
    await call('POST', '/v1/pets', { body: { name: secret, categoryId: 1 } })
    await call('GET', `/v1/pets?status=${secret}`)
    const text = JSON.stringify(logs)
    expect(logs).toHaveLength(3)
    expect(text).not.toContain(hashApiKey(secret))
    expect(text).not.toContain(secret)
  })

  test('is silent below LOG_LEVEL', async () => {
    const lines: string[] = []
    const { call } = await makeTestApp({ logger: createLogger('warn', (line) => lines.push(line)) })
    await call('GET', '/v1/pets')
    expect(lines).toEqual([])
  })
})

describe('createLogger', () => {
  test('writes each level at or above the threshold', () => {
    const lines: string[] = []
    const logger = createLogger('warn', (line) => lines.push(line))
    logger.info('no')
    logger.warn('yes', { a: 1 })
    logger.error('also')
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { time: expect.any(String), level: 'warn', msg: 'yes', a: 1 },
      { time: expect.any(String), level: 'error', msg: 'also' },
    ])
  })
})

describe('the request line names the client', () => {
  test('by the address it was counted under: the socket peer, or with TRUST_PROXY the first forwarded hop', async () => {
    const peer = await makeTestApp({ socketAddress: () => '203.0.113.7' })
    await peer.call('GET', '/v1/pets', { headers: { 'x-forwarded-for': '198.51.100.1' } })
    expect(peer.logs.at(-1)).toMatchObject({ client: '203.0.113.7' })
    const proxied = await makeTestApp({ socketAddress: () => '10.0.0.2', trustProxy: true })
    await proxied.call('GET', '/v1/pets', { headers: { 'x-forwarded-for': '[2001:DB8:0:0:0:0:0:1]:443, 10.0.0.9' } })
    expect(proxied.logs.at(-1)).toMatchObject({ client: '2001:db8::1' })
  })

  test('and its User-Agent: bounded, control characters escaped, a key redacted', async () => {
    const { call, logs, secret } = await makeTestApp()
    const sent = async (userAgent: string) => {
      await call('GET', '/v1/pets', { headers: { 'user-agent': userAgent } })
      return logs.at(-1)!.userAgent
    }
    expect(await sent('curl/8.5.0')).toBe('curl/8.5.0')
    // A header carries bytes (no CR, LF or NUL); the other controls and C1 come through, and are escaped.
    expect(await sent('evil\u0001\u001b[31m\u007f\u0085x')).toBe('evil\\u0001\\u001b[31m\\u007f\\u0085x')
    expect(await sent('x'.repeat(1000))).toBe(`${'x'.repeat(MAX_LOGGED_USER_AGENT)}…(cut)`)
    const withKey = await sent(`tool/1 ${secret}`)
    expect(withKey).not.toContain(secret)
    expect(withKey).toStartWith('tool/1 ')
  })
})

describe('the request line never holds a key', () => {
  test('not even percent-encoded in the path', async () => {
    const { call, logs, secret } = await makeTestApp()
    const encoded = secret.replaceAll('_', '%5F').replace('a', '%61')
    await call('GET', `/v1/pets/${encoded}`)
    await call('GET', `/v1/${encodeURIComponent(secret)}`)
    const text = JSON.stringify(logs)
    expect(text).not.toContain(secret)
    expect(text).not.toContain(encoded)
    expect(logs.at(-1)!.path).toStartWith('/v1/')
  })
})
