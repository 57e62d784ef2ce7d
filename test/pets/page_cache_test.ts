import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { DATA_VERSION_CHECK_MS, DataVersionWatcher } from '../../src/db/data_version'
import { openDatabase } from '../../src/db/sqlite'
import { CachedPetStore } from '../../src/pets/page_cache'
import { SqlitePetStore } from '../../src/pets/sqlite_store'
import type { PetListQuery, PetStore } from '../../src/pets/store'
import { tempDir } from '../helpers'

/** A SQLite store that counts the pages it is asked for. */
function counted(store: PetStore) {
  const counter = { lists: 0 }
  const wrapped: PetStore = {
    list: (query: PetListQuery) => {
      counter.lists++
      return store.list(query)
    },
    create: (pet, claim) => store.create(pet, claim),
    get: (id) => store.get(id),
    answers: () => store.answers(),
  }
  return { wrapped, counter }
}

describe('CachedPetStore', () => {
  test('answers a page it has read from memory until the next create', async () => {
    const db = openDatabase(':memory:')
    const { wrapped, counter } = counted(new SqlitePetStore(db))
    const cache = new CachedPetStore(wrapped, new DataVersionWatcher(db))
    await cache.create({ name: 'Rex', categoryId: 1 })
    const first = await cache.list({ limit: 20 })
    expect(await cache.list({ limit: 20 })).toBe(first)
    expect(counter.lists).toBe(1)
    await cache.list({ limit: 20, status: 'sold' })
    await cache.list({ limit: 20, status: 'sold' })
    expect(counter.lists).toBe(2)
    await cache.create({ name: 'Max', categoryId: 2 })
    const after = await cache.list({ limit: 20 })
    expect(after.pets.map((p) => p.name)).toEqual(['Rex', 'Max'])
    expect(counter.lists).toBe(3)
  })

  test('forgets everything within DATA_VERSION_CHECK_MS when another connection writes the database', async () => {
    const workspace = tempDir('animal-store-cache-')
    try {
      const path = join(workspace.dir, 'store.sqlite')
      const db = openDatabase(path)
      let now = 0
      const cache = new CachedPetStore(new SqlitePetStore(db), new DataVersionWatcher(db, () => now))
      expect((await cache.list({ limit: 20 })).pets).toEqual([])
      await new SqlitePetStore(openDatabase(path)).create({ name: 'Outsider', categoryId: 1 })
      now += DATA_VERSION_CHECK_MS
      expect((await cache.list({ limit: 20 })).pets.map((p) => p.name)).toEqual(['Outsider'])
    } finally {
      workspace.cleanup()
    }
  })

  test('keeps only first pages: later ones come from SQLite every time', async () => {
    const db = openDatabase(':memory:')
    const { wrapped, counter } = counted(new SqlitePetStore(db))
    const cache = new CachedPetStore(wrapped, new DataVersionWatcher(db))
    for (let i = 0; i < 3; i++) await cache.list({ limit: 1, after: 5 })
    expect(counter.lists).toBe(3)
    for (let i = 0; i < 3; i++) await cache.list({ limit: 1, after: 0 })
    expect(counter.lists).toBe(4)
  })
})
