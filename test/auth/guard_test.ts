import { expect, test } from 'bun:test'
import { WWW_AUTHENTICATE } from '../../src/auth/guard'
import { generateApiKey } from '../../src/keys/api_key'
import { BASE, describeEachStore, expectError, makeTestApp } from '../helpers'

async function expectUnauthorized(response: Response): Promise<string> {
  expect(response.headers.get('www-authenticate')).toBe(WWW_AUTHENTICATE)
  expect(WWW_AUTHENTICATE).toBe('Bearer realm="animal-store"')
  return (await expectError(response, 401, 'unauthorized')).message
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
    ['Basic credentials', (key: string) => `Basic ${btoa(`user:${key}`)}`],
    ['a bare key', (key: string) => key],
    ['an empty bearer', () => 'Bearer '],
    ['two tokens', (key: string) => `Bearer ${key} ${key}`],
  ])('refuses %s', async (_, header) => {
    const { app, secret } = await makeTestApp()
    const response = await app.handle(new Request(`${BASE}/v1/pets`, { headers: { authorization: header(secret) } }))
    await expectUnauthorized(response)
  })

  test('refuses a token that is not shaped like a key', async () => {
    const { call } = await makeTestApp()
    expect(await expectUnauthorized(await call('GET', '/v1/pets', { key: 'letmein' }))).toContain(
      'not an Animal Store API key',
    )
  })

  test('refuses a well-formed unknown key, without echoing it', async () => {
    const { call } = await makeTestApp()
    const stranger = generateApiKey()
    const response = await call('GET', '/v1/pets', { key: stranger })
    const message = await expectUnauthorized(response)
    expect(message).toBe('The API key is unknown or revoked')
    expect(message).not.toContain(stranger)
  })

  test('refuses a revoked key on the next request', async () => {
    const { call, keys, key } = await makeTestApp()
    expect((await call('GET', '/v1/pets')).status).toBe(200)
    await keys.revoke(key.id)
    await expectUnauthorized(await call('GET', '/v1/pets'))
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
