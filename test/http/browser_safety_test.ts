import { expect, test } from 'bun:test'
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/docs/routes'
import { describeEachStore, FREE, IN_A_FUTURE_MINUTE, makeTestApp } from '../helpers'

describeEachStore('safe defaults for browsers', () => {
  test('every response says nosniff, early refusals and unknown paths included', async () => {
    const { call } = await makeTestApp({ clock: () => IN_A_FUTURE_MINUTE }, { ...FREE, rpm: 1 })
    const responses = [
      await call('GET', '/v1/pets'),
      await call('GET', '/v1/pets'),
      await call('GET', '/v1/pets', { key: null }),
      await call('GET', '/nowhere'),
      await call('GET', '/docs'),
      await call('GET', '/openapi.json'),
      await call('GET', '/health'),
      await call('GET', '/'),
    ]
    expect(responses.map((response) => response.status)).toEqual([200, 429, 401, 404, 200, 200, 200, 302])
    for (const response of responses) expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('/v1 answers with an ETag may be kept to be revalidated; the others must not be stored', async () => {
    const { call } = await makeTestApp()
    const created = await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const list = await call('GET', '/v1/pets')
    const notModified = await call('GET', '/v1/pets', { headers: { 'if-none-match': list.headers.get('etag')! } })
    const pet = await call('GET', '/v1/pets/1')
    expect([list.status, notModified.status, pet.status]).toEqual([200, 304, 200])
    for (const response of [list, notModified, pet])
      expect(response.headers.get('cache-control')).toBe('private, no-cache')
    const others = [
      created,
      await call('GET', '/v1/rate_limit'),
      await call('GET', '/v1/pets/999'),
      await call('GET', '/v1/pets', { key: null }),
      await call('POST', '/v1/pets', { body: '{', headers: { 'content-type': 'application/json' } }),
    ]
    expect(others.map((response) => response.status)).toEqual([201, 200, 404, 401, 400])
    for (const response of others) expect(response.headers.get('cache-control')).toBe('no-store')
  })

  test('GET / is sent on to /docs, which allows only its own origin and sends no referrer', async () => {
    const { call } = await makeTestApp()
    const root = await call('GET', '/', { key: null })
    expect(root.status).toBe(302)
    expect(new URL(root.headers.get('location')!, 'http://localhost/').pathname).toBe('/docs')
    const page = await call('GET', '/docs', { key: null })
    expect(page.headers.get('content-security-policy')).toBe(DOCS_CONTENT_SECURITY_POLICY)
    expect(DOCS_CONTENT_SECURITY_POLICY).toStartWith("default-src 'self'")
    expect(DOCS_CONTENT_SECURITY_POLICY).not.toContain('unsafe')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    const html = await page.text()
    // No inline script: each <script> loads a file the service serves.
    expect(html.match(/<script[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script src="docs\/swagger-ui-bundle\.js\?v=\w+">$/),
      expect.stringMatching(/^<script src="docs\/swagger-init\.js\?v=\w+">$/),
    ])
    const init = await call('GET', '/docs/swagger-init.js', { key: null })
    expect(init.headers.get('content-type')).toStartWith('application/javascript')
    expect(await init.text()).toContain("url: 'openapi.json'")
  })
})
