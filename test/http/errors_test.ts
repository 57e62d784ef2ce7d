import { describe, expect, test } from 'bun:test'
import { ERROR_CODES, type ErrorCode, errorBody, HttpError } from '../../src/http/errors'
import type { PetStore } from '../../src/pets/store'
import { describeEachStore, expectError, makeTestApp } from '../helpers'

// One test per row of decisions.md's error table that this service answers today.
describeEachStore('Error bodies', () => {
  test('400 invalid_request for a bad query value', async () => {
    const { call } = await makeTestApp()
    await expectError(await call('GET', '/v1/pets?limit=0'), 400, 'invalid_request')
  })

  test('401 unauthorized without a key', async () => {
    const { call } = await makeTestApp()
    await expectError(await call('GET', '/v1/pets', { key: null }), 401, 'unauthorized')
  })

  test('404 not_found for an unknown path with a valid key', async () => {
    const { call } = await makeTestApp()
    const error = await expectError(await call('GET', '/v1/cats'), 404, 'not_found')
    expect(error.message).toContain('/v1/cats')
  })

  test("404 not_found as JSON, never Elysia's plain text, outside /v1", async () => {
    const { call } = await makeTestApp()
    await expectError(await call('GET', '/nowhere', { key: null }), 404, 'not_found')
  })

  test.each([
    ['DELETE', '/v1/pets', 'GET, HEAD, POST'],
    ['PUT', '/v1/pets', 'GET, HEAD, POST'],
    ['PUT', '/v1/pets/1', 'DELETE, GET, HEAD, PATCH'],
    ['POST', '/v1/pets/1', 'DELETE, GET, HEAD, PATCH'],
    ['POST', '/v1/store/inventory', 'GET, HEAD'],
    ['DELETE', '/v1/pets/', 'GET, HEAD, POST'],
  ])('405 method_not_allowed for %s %s, with Allow: %s', async (method, path, allow) => {
    const { call } = await makeTestApp()
    const response = await call(method, path)
    expect(response.headers.get('allow')).toBe(allow)
    await expectError(response, 405, 'method_not_allowed')
  })

  test('413 payload_too_large over 16 KiB', async () => {
    const { call } = await makeTestApp()
    const body = JSON.stringify({ name: 'x'.repeat(16 * 1024), categoryId: 1 })
    await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    )
  })

  test('415 unsupported_media_type for a form body', async () => {
    const { call } = await makeTestApp()
    const response = await call('POST', '/v1/pets', {
      body: 'name=Rex&categoryId=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    await expectError(response, 415, 'unsupported_media_type')
  })

  test('500 internal_error for anything unexpected, reported and not leaked', async () => {
    const failing: PetStore = {
      list: () => {
        throw new Error('disk on fire at /secret/path')
      },
      create: () => Promise.reject(new Error('nope')),
      get: () => undefined,
      update: () => Promise.reject(new Error('nope')),
      delete: () => Promise.reject(new Error('nope')),
      inventory: () => ({ available: 0, pending: 0, sold: 0 }),
      answers: () => true,
    }
    const { call, logs } = await makeTestApp({ pets: failing })
    const reported = () => logs.filter((line) => line.msg === 'unexpected error')
    const response = await call('GET', '/v1/pets')
    const error = await expectError(response, 500, 'internal_error')
    expect(error.message).toBe('Internal server error')
    expect(JSON.stringify(error)).not.toContain('secret')
    expect(reported()).toHaveLength(1)
    expect(reported()[0]).toMatchObject({ level: 'error', error: 'disk on fire at /secret/path' })
    await expectError(await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } }), 500, 'internal_error')
    expect(reported()).toHaveLength(2)
  })
})

describe('HttpError', () => {
  test('takes its status from the Error code, for every code', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const known = code as ErrorCode
      const error = new HttpError(known, 'message')
      expect(error.code).toBe(known)
      expect(error.status).toBe(status)
      expect(errorBody(known, 'message')).toEqual({ code: known, message: 'message', status })
    }
  })

  test('every code answers with a client (4xx) or server (5xx) error status', () => {
    for (const { status } of Object.values(ERROR_CODES)) expect(status >= 400 && status <= 599).toBe(true)
  })
})

describeEachStore('Errors that name their fields (1.2)', () => {
  test('a body with four bad fields gets one errors entry for each, in a stable order', async () => {
    const { call } = await makeTestApp()
    const response = await call('POST', '/v1/pets', {
      body: { name: '', categoryId: 0, status: 'lost', colour: 'red' },
    })
    const error = await expectError(response, 400, 'invalid_request')
    expect(error.errors).toEqual([
      { param: 'colour', message: '"colour" is not an accepted property' },
      { param: 'name', message: '"name" must be a string of 1 to 255 characters, not only white space' },
      { param: 'categoryId', message: '"categoryId" must be an integer from 1 to 9007199254740991' },
      { param: 'status', message: '"status" must be one of available, pending, sold' },
    ])
    // message and param are the first violation's: what a client that ignores the new fields saw before.
    expect(error).toMatchObject({ message: '"colour" is not an accepted property', param: 'colour' })
  })

  test('a missing field, a query parameter, a path parameter and a header are named too', async () => {
    const { call } = await makeTestApp()
    const missing = await expectError(await call('POST', '/v1/pets', { body: {} }), 400, 'invalid_request')
    expect(missing.errors!.map((entry) => entry.param)).toEqual(['name', 'categoryId'])
    const query = await expectError(await call('GET', '/v1/pets?limit=0&status=lost'), 400, 'invalid_request')
    expect(query.errors!.map((entry) => entry.param)).toEqual(['limit', 'status'])
    const path = await expectError(await call('GET', '/v1/pets/abc'), 400, 'invalid_request')
    expect(path.param).toBe('petId')
    const header = await call('POST', '/v1/pets', {
      body: { name: 'Rex', categoryId: 1 },
      headers: { 'idempotency-key': 'x'.repeat(300) },
    })
    expect((await expectError(header, 400, 'invalid_request')).param).toBe('Idempotency-Key')
  })

  test('other failures point at their field or header when they have one, and list no errors', async () => {
    const { call } = await makeTestApp()
    const pointed = async (response: Response, status: number, code: string) => {
      const error = await expectError(response, status, code)
      expect(error.errors).toBeUndefined()
      return error.param
    }
    expect(await pointed(await call('GET', '/v1/pets/9'), 404, 'not_found')).toBe('petId')
    expect(await pointed(await call('GET', '/v1/pets', { key: null }), 401, 'unauthorized')).toBe('Authorization')
    const text = { body: '{}', headers: { 'content-type': 'text/plain' } }
    expect(await pointed(await call('POST', '/v1/pets', text), 415, 'unsupported_media_type')).toBe('Content-Type')
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    const stale = { body: { name: 'Max' }, headers: { 'if-match': '"stale"' } }
    expect(await pointed(await call('PATCH', '/v1/pets/1', stale), 412, 'precondition_failed')).toBe('If-Match')
    await call('PATCH', '/v1/pets/1', { body: { status: 'sold' } })
    const back = { body: { status: 'available' } }
    expect(await pointed(await call('PATCH', '/v1/pets/1', back), 409, 'invalid_transition')).toBe('status')
    const order = { body: { petId: 1 } }
    expect(await pointed(await call('POST', '/v1/store/orders', order), 409, 'pet_not_available')).toBe('petId')
    expect(await pointed(await call('GET', '/v1/nowhere'), 404, 'not_found')).toBeUndefined()
  })
})
