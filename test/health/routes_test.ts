import { describe, expect, test } from 'bun:test'
import { SqlitePetStore } from '../../src/pets/store'
import { expectError, json, makeTestApp } from '../helpers'

describe('GET /health', () => {
  test('is 200 {"status":"ok"} without a key while the database answers', async () => {
    const { call } = await makeTestApp()
    const response = await call('GET', '/health', { key: null })
    expect(response.status).toBe(200)
    expect(await json(response)).toEqual({ status: 'ok' })
  })

  test('is 503 when the database does not answer', async () => {
    const { db } = await makeTestApp()
    const silent = Object.assign(Object.create(new SqlitePetStore(db)), { answers: () => false })
    const { call } = await makeTestApp({ pets: silent })
    await expectError(await call('GET', '/health', { key: null }), 503, 'unavailable')
  })

  test('is 503 when the store throws', async () => {
    const { db } = await makeTestApp()
    const pets = new SqlitePetStore(db)
    const broken = Object.assign(Object.create(pets), { answers: () => Promise.reject(new Error('gone')) })
    const { call } = await makeTestApp({ pets: broken })
    await expectError(await call('GET', '/health', { key: null }), 503, 'unavailable')
  })
})
