import { expect, test } from 'bun:test'
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS } from '../../src/http/cors'
import { describeEachStore, FREE, IN_A_FUTURE_MINUTE, makeTestApp } from '../helpers'

const SHOP = 'https://shop.example'
const preflight = (origin: string, path = '/v1/pets') => ({
  key: null,
  headers: {
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type',
  },
  path,
})

function corsHeaders(response: Response): Record<string, string> {
  const found: Record<string, string> = {}
  for (const [name, value] of response.headers) if (name.startsWith('access-control-')) found[name] = value
  return found
}

describeEachStore('CORS', () => {
  test('off by default: a preflight is refused by the guard as any request without a key, with no CORS headers', async () => {
    const { call } = await makeTestApp()
    const { path, ...request } = preflight(SHOP)
    const response = await call('OPTIONS', path, request)
    expect(response.status).toBe(401)
    expect(corsHeaders(response)).toEqual({})
    const list = await call('GET', '/v1/pets', { headers: { origin: SHOP } })
    expect(corsHeaders(list)).toEqual({})
    expect(list.headers.get('vary')).toBeNull()
  })

  test('a preflight from an allowed origin is answered 204 before the key check, and is not counted', async () => {
    const { call } = await makeTestApp({ corsOrigins: [SHOP] }, { ...FREE, rpm: 2 })
    const { path, ...request } = preflight(SHOP)
    for (let i = 0; i < 5; i++) {
      const response = await call('OPTIONS', path, request)
      expect(response.status).toBe(204)
      expect(await response.text()).toBe('')
      expect(corsHeaders(response)).toEqual({
        'access-control-allow-origin': SHOP,
        'access-control-allow-methods': 'DELETE, GET, HEAD, PATCH, POST',
        'access-control-allow-headers': CORS_ALLOW_HEADERS,
        'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
      })
      expect(response.headers.get('vary')).toBe('Origin')
      expect(response.headers.get('x-ratelimit-limit')).toBeNull()
      expect(response.headers.get('x-request-id')).not.toBeNull()
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    }
    // Five preflights cost the key nothing: both of its two requests a minute are left.
    const list = await call('GET', '/v1/pets', { headers: { origin: SHOP } })
    expect(list.headers.get('x-ratelimit-remaining')).toBe('1')
  })

  test('the allowed headers cover every request header the service reads', () => {
    for (const name of ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match'])
      expect(CORS_ALLOW_HEADERS.split(', ')).toContain(name)
  })

  test('a preflight from an origin not allowed gets no CORS headers; it goes on as if CORS were off', async () => {
    const { call } = await makeTestApp({ corsOrigins: [SHOP] })
    const { path, ...request } = preflight('https://evil.example')
    const response = await call('OPTIONS', path, request)
    expect(response.status).toBe(401)
    expect(corsHeaders(response)).toEqual({})
    expect(response.headers.get('vary')).toBe('Origin')
  })

  test('a preflight outside /v1 and /openapi.json is left alone', async () => {
    const { call } = await makeTestApp({ corsOrigins: '*' })
    const { path, ...request } = preflight(SHOP, '/health')
    const response = await call('OPTIONS', path, request)
    expect(response.status).toBe(405)
    expect(corsHeaders(response)).toEqual({})
  })

  test('an OPTIONS without Access-Control-Request-Method is no preflight: the guard answers it', async () => {
    const { call } = await makeTestApp({ corsOrigins: [SHOP] })
    const response = await call('OPTIONS', '/v1/pets', { key: null, headers: { origin: SHOP } })
    expect(response.status).toBe(401)
    expect(response.headers.get('access-control-allow-origin')).toBe(SHOP)
  })

  test('every /v1 answer to an allowed origin names it and exposes the headers a client reads, refusals included', async () => {
    const { call } = await makeTestApp(
      { corsOrigins: [SHOP, 'http://localhost:5173'], clock: () => IN_A_FUTURE_MINUTE },
      { ...FREE, rpm: 2 },
    )
    const headers = { origin: SHOP }
    const created = await call('POST', '/v1/pets', { headers, body: { name: 'Rex', categoryId: 1 } })
    const list = await call('GET', '/v1/pets?limit=1', { headers })
    const refused = await call('GET', '/v1/pets', { headers })
    const anonymous = await call('GET', '/v1/pets', { headers, key: null })
    const invalid = await call('POST', '/v1/pets', { headers, key: null, body: '{' })
    expect([created.status, list.status, refused.status, anonymous.status, invalid.status]).toEqual([
      201, 200, 429, 401, 401,
    ])
    for (const response of [created, list, refused, anonymous, invalid]) {
      expect(response.headers.get('access-control-allow-origin')).toBe(SHOP)
      expect(response.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSE_HEADERS)
      expect(response.headers.get('vary')).toContain('Origin')
    }
    // Every header a client reads is exposed, by the name it is sent under.
    const exposed = CORS_EXPOSE_HEADERS.toLowerCase().split(', ')
    for (const response of [created, list, refused])
      for (const [name] of response.headers)
        if (/^(x-ratelimit-|ratelimit|retry-after|link|location|etag|x-request-id|www-authenticate)/.test(name))
          expect(exposed).toContain(name)
    for (const name of ['deprecation', 'sunset', 'idempotent-replayed']) expect(exposed).toContain(name)
  })

  test('an answer to an origin not allowed, or to no origin, has no CORS headers but says Vary: Origin', async () => {
    const { call } = await makeTestApp({ corsOrigins: [SHOP] })
    for (const headers of [{ origin: 'https://evil.example' }, {}, { origin: 'https://shop.example.evil' }] as Record<
      string,
      string
    >[]) {
      const response = await call('GET', '/v1/pets', { headers })
      expect(response.status).toBe(200)
      expect(corsHeaders(response)).toEqual({})
      expect(response.headers.get('vary')).toContain('Origin')
    }
  })

  test('with *, every origin is answered with * and no Vary: Origin (the answer does not depend on it)', async () => {
    const { call } = await makeTestApp({ corsOrigins: '*' })
    const { path, ...request } = preflight('https://anyone.example')
    const answered = await call('OPTIONS', path, request)
    expect(answered.status).toBe(204)
    expect(answered.headers.get('access-control-allow-origin')).toBe('*')
    const list = await call('GET', '/v1/pets', { headers: { origin: 'https://anyone.example' } })
    expect(list.headers.get('access-control-allow-origin')).toBe('*')
    expect(list.headers.get('vary') ?? '').not.toContain('Origin')
  })

  test('/openapi.json is readable from an allowed origin; /docs and /health carry no CORS headers', async () => {
    const { call } = await makeTestApp({ corsOrigins: [SHOP] })
    const headers = { origin: SHOP }
    expect((await call('GET', '/openapi.json', { headers })).headers.get('access-control-allow-origin')).toBe(SHOP)
    for (const path of ['/docs', '/health'])
      expect(corsHeaders(await call('GET', path, { headers, key: null }))).toEqual({})
  })
})
