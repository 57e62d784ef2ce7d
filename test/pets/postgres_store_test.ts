import { describe, expect, test } from 'bun:test'
import { PostgresPetStore } from '../../src/pets/postgres_store'
import { cleanupsAfterEach } from '../helpers'
import { postgresPools, SHARED_STORES } from '../shared_services'

const cleanups = cleanupsAfterEach()

describe.skipIf(!SHARED_STORES)('PostgresPetStore', () => {
  test('a pet created on one instance is listed by another, in id order', async () => {
    const [a, b] = await postgresPools(2, cleanups)
    const onA = new PostgresPetStore(a!)
    const onB = new PostgresPetStore(b!)
    for (const name of ['x', 'y', 'z']) await onA.create({ name, categoryId: 1 })
    const page = await onB.list({ limit: 2 })
    expect(page.pets.map((p) => p.name)).toEqual(['x', 'y'])
    expect(page.more).toBe(true)
    expect((await onB.list({ limit: 2, after: page.pets[1]!.id })).pets.map((p) => p.name)).toEqual(['z'])
  })

  test('one Idempotency-Key creates one pet even when two instances race with it', async () => {
    const [a, b] = await postgresPools(2, cleanups)
    const stores = [new PostgresPetStore(a!), new PostgresPetStore(b!)]
    const claim = { apiKeyId: 1, key: 'race', requestHash: 'same-body', now: Date.now() }
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => stores[i % 2]!.create({ name: 'Rex', categoryId: 1 }, claim)),
    )
    expect(outcomes.filter((o) => o.kind === 'created').length).toBe(1)
    expect(outcomes.filter((o) => o.kind === 'replayed').length).toBe(9)
    const ids = new Set(outcomes.map((o) => (o.kind === 'conflict' ? 0 : o.pet.id)))
    expect(ids.size).toBe(1)
    expect(await a!`SELECT count(*)::int AS n FROM pets`).toEqual([{ n: 1 }])
    expect(
      await stores[1]!.create({ name: 'Other', categoryId: 1 }, { ...claim, requestHash: 'another-body' }),
    ).toEqual({ kind: 'conflict' })
  })
})
