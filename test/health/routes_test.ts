import { describe, expect, test } from 'bun:test'
import { healthChecks } from '../../src/health/routes'
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

describeEachStore('GET /health/live and /health/ready (Kubernetes probes)', () => {
  test('live is 200 whatever the database and the limiter say; ready is /health', async () => {
    const { pets } = await makeTestApp()
    const silent = Object.assign(Object.create(pets), { answers: () => false })
    const down = Object.assign(new MemoryRateLimiter(), { health: (): LimiterHealth => 'down' })
    for (const overrides of [{ pets: silent }, { limiter: down }]) {
      const { call } = await makeTestApp(overrides)
      const live = await call('GET', '/health/live', { key: null })
      expect(live.status).toBe(200)
      expect(await json(live)).toEqual({ status: 'ok' })
      await expectError(await call('GET', '/health/ready', { key: null }), 503, 'unavailable')
    }
    const { call } = await makeTestApp()
    const ready = await call('GET', '/health/ready', { key: null })
    expect(ready.status).toBe(200)
    expect(await json(ready)).toEqual({ status: 'ok' })
  })

  test('ready is 503 from the moment the service begins to stop; live stays 200', async () => {
    const { pets } = await makeTestApp()
    let stopping = false
    const { call } = await makeTestApp({ health: healthChecks(pets, { health: () => 'ok' as const }, () => stopping) })
    expect((await call('GET', '/health/ready', { key: null })).status).toBe(200)
    stopping = true
    const refused = await expectError(await call('GET', '/health/ready', { key: null }), 503, 'unavailable')
    expect(refused.message).toBe('The service is stopping')
    expect((await call('GET', '/health/live', { key: null })).status).toBe(200)
    expect((await call('GET', '/health', { key: null })).status).toBe(200)
  })

  test('ready is 200 "degraded" while Redis is down and requests go on (REDIS_FAILURE_MODE=open)', async () => {
    const degraded = Object.assign(new MemoryRateLimiter(), { health: (): LimiterHealth => 'degraded' })
    const { call } = await makeTestApp({ limiter: degraded })
    const ready = await call('GET', '/health/ready', { key: null })
    expect(ready.status).toBe(200)
    expect(await json(ready)).toEqual({ status: 'degraded', rateLimiter: 'unreachable' })
  })
})
