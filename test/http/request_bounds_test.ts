import { expect, test } from 'bun:test'
import { MAX_HEADER_BYTES, MAX_TARGET_BYTES } from '../../src/http/limits'
import { describeEachStore, expectError, makeTestApp } from '../helpers'

describeEachStore('request bounds in the app', () => {
  test('a request target over 8 KiB is 414, counted and with the rate-limit headers', async () => {
    const { call } = await makeTestApp()
    const path = `/v1/pets?status=${'x'.repeat(MAX_TARGET_BYTES)}`
    const response = await call('GET', path)
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/)
    const error = await expectError(response, 414, 'uri_too_long')
    expect(error.message).toContain(String(MAX_TARGET_BYTES))
  })

  test('a request target of exactly 8 KiB goes on to the route', async () => {
    const { call } = await makeTestApp()
    const prefix = '/v1/pets?status='
    const response = await call('GET', prefix + 'x'.repeat(MAX_TARGET_BYTES - prefix.length))
    await expectError(response, 400, 'invalid_request')
  })

  test('headers over 16 KiB are 431', async () => {
    const { call } = await makeTestApp()
    const response = await call('GET', '/v1/pets', { headers: { 'x-padding': 'p'.repeat(MAX_HEADER_BYTES) } })
    await expectError(response, 431, 'headers_too_large')
  })

  test('apply outside /v1 too, without a key', async () => {
    const { call } = await makeTestApp()
    await expectError(await call('GET', `/docs?${'q'.repeat(MAX_TARGET_BYTES)}`, { key: null }), 414, 'uri_too_long')
  })
})
