import { describe, expect, test } from 'bun:test'
import { StoreUnavailableError } from '../../src/db/store_unavailable'
import { LEFT_OUT_DEFAULT_METRICS, ServiceMetrics } from '../../src/metrics/metrics'
import { operationOf } from '../../src/metrics/operation'
import type { CachedPetStore } from '../../src/pets/page_cache'
import { FREE, IN_A_FUTURE_MINUTE, makeTestApp } from '../helpers'
import { parseExposition } from './exposition'

async function scrape(metrics: ServiceMetrics): Promise<Map<string, number>> {
  const { text, contentType } = await metrics.scrape()
  expect(contentType).toStartWith('text/plain; version=0.0.4')
  return parseExposition(text)
}

function metricsFor(pets?: { lookups(): { hits: number; misses: number } }) {
  return new ServiceMetrics({
    limiterSizes: () => ({ today: 3, anonymous: 2, banned: 1 }),
    pageCache: pets && (() => pets.lookups()),
    bunVersion: Bun.version,
    version: '1.0.0',
  })
}

describe('operationOf', () => {
  test.each([
    ['GET', '/v1/pets', 'listPets'],
    ['HEAD', '/v1/pets?limit=2', 'listPets'],
    ['POST', '/v1/pets', 'createPet'],
    ['GET', '/v1/pets/7', 'getPet'],
    ['GET', '/v1/rate_limit', 'getRateLimit'],
    ['PATCH', '/v1/pets/7', 'updatePet'],
    ['DELETE', '/v1/pets/7', 'deletePet'],
    ['PUT', '/v1/pets/7', 'other'],
    ['GET', '/v1/store/inventory', 'getInventory'],
    ['DELETE', '/v1/store/inventory', 'other'],
    ['POST', '/v1/store/orders', 'placeOrder'],
    ['GET', '/v1/store/orders?status=placed', 'listOrders'],
    ['GET', '/v1/store/orders/3', 'getOrder'],
    ['PATCH', '/v1/store/orders/3', 'updateOrder'],
    ['DELETE', '/v1/store/orders/3', 'other'],
    ['PUT', '/v1/store/orders', 'other'],
    ['GET', '/v1/nowhere', 'other'],
    ['GET', '/docs', 'docs'],
    ['GET', '/docs/swagger-ui.css?v=x', 'docs'],
    ['GET', '/openapi.json', 'docs'],
    ['GET', '/', 'docs'],
    ['GET', '/health', 'other'],
  ])('%s %s is %s', (method, path, operation) => {
    expect(operationOf(new Request(`http://localhost${path}`, { method }))).toBe(operation as never)
  })
})

describe('metrics', () => {
  test('the exposition parses strictly, and leaves out what says nothing true on Bun', async () => {
    const samples = await scrape(metricsFor())
    for (const name of LEFT_OUT_DEFAULT_METRICS) for (const key of samples.keys()) expect(key).not.toStartWith(name)
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(samples.has(name)).toBe(true)
    expect(samples.get(`animal_store_build_info{version="1.0.0",bun="${Bun.version}"}`)).toBe(1)
    expect(samples.get('animal_store_rate_limit_subjects{kind="key"}')).toBe(1)
    expect(samples.get('animal_store_rate_limit_subjects{kind="address"}')).toBe(2)
    expect(samples.get('animal_store_rate_limit_subjects{kind="banned"}')).toBe(1)
  })

  test('requests move the counters by exactly the requests sent, by operation and status, with their latency', async () => {
    const metrics = metricsFor()
    const { call } = await makeTestApp({ metrics, clock: () => IN_A_FUTURE_MINUTE }, { ...FREE, rpm: 3 })
    await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 } })
    await call('GET', '/v1/pets')
    await call('GET', '/v1/pets/1')
    await call('GET', '/v1/pets/1') // the fourth request of a 3-a-minute key: 429
    await call('GET', '/v1/pets', { key: null })
    await call('GET', '/v1/rate_limit')
    await call('GET', '/docs', { key: null })
    await call('GET', '/health', { key: null })
    const samples = await scrape(metrics)
    const requests = (operation: string, status: number) =>
      samples.get(`animal_store_http_requests_total{operation="${operation}",status="${status}"}`)
    expect([
      requests('createPet', 201),
      requests('listPets', 200),
      requests('getPet', 200),
      requests('getPet', 429),
      requests('listPets', 401),
      requests('getRateLimit', 200),
      requests('docs', 200),
      requests('other', 200),
    ]).toEqual([1, 1, 1, 1, 1, 1, 1, 1])
    const total = [...samples]
      .filter(([key]) => key.startsWith('animal_store_http_requests_total'))
      .reduce((sum, [, value]) => sum + value, 0)
    expect(total).toBe(8)
    expect(samples.get('animal_store_http_request_duration_seconds_count{operation="getPet"}')).toBe(2)
    expect(samples.get('animal_store_http_request_duration_seconds_bucket{le="+Inf",operation="listPets"}')).toBe(2)
    expect(samples.get('animal_store_http_request_duration_seconds_sum{operation="listPets"}')).toBeGreaterThan(0)
    expect(samples.get('animal_store_rate_limit_refusals_total{reason="rate_limit_exceeded"}')).toBe(1)
  })

  test('counts the first-page cache hits and misses', async () => {
    const made = await makeTestApp()
    const metrics = metricsFor(made.pets as CachedPetStore)
    const { call } = await makeTestApp({ metrics, pets: made.pets, keys: made.keys })
    for (let i = 0; i < 3; i++) await call('GET', '/v1/pets', { key: made.secret })
    const samples = await scrape(metrics)
    expect(samples.get('animal_store_page_cache_requests_total{result="miss"}')).toBe(1)
    expect(samples.get('animal_store_page_cache_requests_total{result="hit"}')).toBe(2)
  })

  test('counts requests answered 503 because the database does not answer', async () => {
    const made = await makeTestApp()
    const metrics = metricsFor()
    const failing = Object.create(made.pets, {
      list: {
        value: () => {
          throw new StoreUnavailableError('gone')
        },
      },
    })
    const { call } = await makeTestApp({ metrics, pets: failing, keys: made.keys })
    expect((await call('GET', '/v1/pets', { key: made.secret })).status).toBe(503)
    expect((await scrape(metrics)).get('animal_store_database_errors_total')).toBe(1)
  })

  test('without metrics the app answers as before, and exposes nothing', async () => {
    const { call } = await makeTestApp()
    expect((await call('GET', '/metrics', { key: null })).status).toBe(404)
  })
})
