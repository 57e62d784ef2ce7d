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
