import { expect, test } from 'bun:test'
import { describeEachStore, expectError, json, makeTestApp } from './helpers'

// createApp turns off or replaces Elysia defaults that would break the contract: these show each one holds.
describeEachStore("Elysia's defaults are overridden", () => {
  test('a validation failure is 400, never 422', async () => {
    const { call } = await makeTestApp()
    for (const path of ['/v1/pets?limit=abc', '/v1/pets/abc']) expect((await call('GET', path)).status).toBe(400)
    expect((await call('POST', '/v1/pets', { body: { name: '' } })).status).toBe(400)
  })

  test('unknown body properties are refused, not silently stripped', async () => {
    const { call, pets } = await makeTestApp()
    await expectError(
      await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1, owner: 'me' } }),
      400,
      'invalid_request',
    )
    expect((await pets.list({ limit: 10 })).pets).toHaveLength(0)
  })

  test('a form body is not accepted as a pet', async () => {
    const { call, pets } = await makeTestApp()
    const form = new URLSearchParams({ name: 'Rex', categoryId: '1' }).toString()
    expect(
      (await call('POST', '/v1/pets', { body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
        .status,
    ).toBe(415)
    expect((await pets.list({ limit: 10 })).pets).toHaveLength(0)
  })

  test('a one-letter Host header does not confuse routing', async () => {
    const { app, secret } = await makeTestApp()
    const response = await app.handle(
      new Request('http://x/v1/pets?limit=1', { headers: { authorization: `Bearer ${secret}` } }),
    )
    expect(response.status).toBe(200)
    expect(
      (await app.handle(new Request('http://x/v1/pets?limit=0', { headers: { authorization: `Bearer ${secret}` } })))
        .status,
    ).toBe(400)
  })

  test('a HEAD of the list answers like GET without a body', async () => {
    const { call } = await makeTestApp()
    const response = await call('HEAD', '/v1/pets')
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('')
  })

  test('unknown query parameters are refused with 400 naming them', async () => {
    const { call } = await makeTestApp()
    const error = await expectError(await call('GET', '/v1/pets?colour=brown'), 400, 'invalid_request')
    expect(error.message).toBe('"colour" is not an accepted query parameter')
  })

  test('a repeated query parameter counts with its last value', async () => {
    const { call } = await makeTestApp()
    for (let i = 0; i < 3; i++) await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    expect(await json(await call('GET', '/v1/pets?limit=1&limit=2'))).toHaveLength(2)
  })
})
