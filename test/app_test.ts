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

describeEachStore('one rule for unknown query parameters under /v1', () => {
  test('every operation of the document refuses one with 400 naming it, and does nothing', async () => {
    const { call } = await makeTestApp()
    expect((await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })).status).toBe(201)
    expect((await call('POST', '/v1/store/orders', { body: { petId: 1 } })).status).toBe(201)
    const requests: [string, string, unknown?][] = [
      ['GET', '/v1/pets'],
      ['POST', '/v1/pets', { name: 'Tom', categoryId: 1 }],
      ['GET', '/v1/pets/1'],
      ['PATCH', '/v1/pets/1', { name: 'Max' }],
      ['DELETE', '/v1/pets/1'],
      ['GET', '/v1/store/inventory'],
      ['POST', '/v1/store/orders', { petId: 1 }],
      ['GET', '/v1/store/orders'],
      ['GET', '/v1/store/orders/1'],
      ['PATCH', '/v1/store/orders/1', { status: 'cancelled' }],
      ['GET', '/v1/rate_limit'],
    ]
    // Every operation the document lists is here, so a new one cannot slip by.
    const document = await json(await call('GET', '/openapi.json'))
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item as object))
    expect(requests).toHaveLength(operations.length)
    for (const [method, path, body] of requests) {
      const refused = await call(method, `${path}?colour=red`, { body })
      const error = await expectError(refused, 400, 'invalid_request')
      expect({ method, path, message: error.message }).toEqual({
        method,
        path,
        message: expect.stringContaining('"colour"'),
      })
    }
    expect(await json(await call('GET', '/v1/pets'))).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'pending' },
    ])
    expect(await json(await call('GET', '/v1/store/orders'))).toMatchObject([{ id: 1, status: 'placed' }])
  })
})
