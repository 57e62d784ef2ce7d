import { describe, expect, test } from 'bun:test'
import type { LimiterHealth } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { describeEachStore, expectError, json, makeTestApp } from '../helpers'

describeEachStore('GET /health', () => {
  test('is 200 {"status":"ok"} without a key while the database answers', async () => {
    const { call } = await makeTestApp()
    const response = await call('GET', '/health', { key: null })
    expect(response.status).toBe(200)
    expect(await json(response)).toEqual({ status: 'ok' })
  })

  test('is 503 when the database does not answer', async () => {
    const { pets } = await makeTestApp()
    const silent = Object.assign(Object.create(pets), { answers: () => false })
    const { call } = await makeTestApp({ pets: silent })
    await expectError(await call('GET', '/health', { key: null }), 503, 'unavailable')
  })

  test('is 503 when the store throws', async () => {
    const { pets } = await makeTestApp()
    const broken = Object.assign(Object.create(pets), { answers: () => Promise.reject(new Error('gone')) })
    const { call } = await makeTestApp({ pets: broken })
    await expectError(await call('GET', '/health', { key: null }), 503, 'unavailable')
  })
})

describe('GET /health with a shared limiter', () => {
  const limiterSaying = (health: LimiterHealth) => Object.assign(new MemoryRateLimiter(), { health: () => health })

  test('is 200 "degraded" while Redis is unreachable and requests go on (REDIS_FAILURE_MODE=open)', async () => {
    const { call } = await makeTestApp({ limiter: limiterSaying('degraded') })
    const response = await call('GET', '/health', { key: null })
    expect(response.status).toBe(200)
    expect(await json(response)).toEqual({ status: 'degraded', rateLimiter: 'unreachable' })
  })

  test('is 503 while Redis is unreachable and requests are refused (REDIS_FAILURE_MODE=closed)', async () => {
    const { call } = await makeTestApp({ limiter: limiterSaying('down') })
    const error = await expectError(await call('GET', '/health', { key: null }), 503, 'unavailable')
    expect(error.message).toContain('rate limiter')
  })
})
