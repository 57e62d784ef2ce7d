import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { DataVersionWatcher } from '../../src/db/data_version'
import { GroupCommit } from '../../src/db/group_commit'
import { openDatabase } from '../../src/db/sqlite'
import { TurnReads } from '../../src/db/turn_reads'
import { closeDatabase } from '../../src/db/wal_ownership'
import { CachedPetStore, LATER_PAGES_KEPT } from '../../src/pets/page_cache'
import { SqlitePetStore } from '../../src/pets/sqlite_store'
import { tempDir } from '../helpers'
import { counted } from './counted_store'

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

  test('forgets everything at the next read once another connection has written the database', async () => {
    const workspace = tempDir('animal-store-cache-')
    try {
      const path = join(workspace.dir, 'store.sqlite')
      const db = openDatabase(path)
      const cache = new CachedPetStore(new SqlitePetStore(db), new DataVersionWatcher(db, () => 0))
      expect((await cache.list({ limit: 20 })).pets).toEqual([])
      const other = new SqlitePetStore(openDatabase(path))
      await other.create({ name: 'Outsider', categoryId: 1 })
      expect((await cache.list({ limit: 20 })).pets.map((p) => p.name)).toEqual(['Outsider'])
      await other.update(1, { status: 'sold' })
      expect((await cache.list({ limit: 20, status: 'available' })).pets).toEqual([])
      expect((await cache.list({ limit: 20 })).pets.map((p) => p.status)).toEqual(['sold'])
    } finally {
      workspace.cleanup()
    }
  })

  test('a page it does not keep costs one ask of the data version, shared with the snapshot it is read in', () => {
    const workspace = tempDir('animal-store-cache-')
    try {
      const db = openDatabase(join(workspace.dir, 'store.sqlite'))
      const watcher = new DataVersionWatcher(db)
      let asked = 0
      const reads = new TurnReads(db, {
        current: () => {
          asked++
          return watcher.current()
        },
      })
      const store = new SqlitePetStore(db, new GroupCommit(db, reads), reads)
      const cache = new CachedPetStore(store, reads)
      expect(cache.list({ limit: 20, after: 5 })).toEqual({ pets: [], more: false })
      expect(asked).toBe(1)
      // A pet read alone asks for itself.
      expect(cache.get(1)).toBeUndefined()
      expect(asked).toBe(2)
      reads.close()
      closeDatabase(db)
      watcher.close()
    } finally {
      workspace.cleanup()
    }
  })

  test('keeps later pages too: one with a next page survives creates, the last one is read again after a create', async () => {
    const db = openDatabase(':memory:')
    const { wrapped, counter } = counted(new SqlitePetStore(db))
    const cache = new CachedPetStore(wrapped, new DataVersionWatcher(db))
    for (let i = 1; i <= 5; i++) await cache.create({ name: `Pet ${i}`, categoryId: 1 })
    // A full page with a next one (ids 3 and 4), a last page (id 5), and a full first page (1 and 2).
    // Later pages are kept from their second read.
    await cache.list({ limit: 2, after: 2 })
    await cache.list({ limit: 2, after: 4 })
    const middle = await cache.list({ limit: 2, after: 2 })
    const last = await cache.list({ limit: 2, after: 4 })
    const first = await cache.list({ limit: 2 })
    expect([middle.more, last.more, first.more]).toEqual([true, false, true])
    for (let i = 0; i < 3; i++) {
      expect(await cache.list({ limit: 2, after: 2 })).toBe(middle)
      expect(await cache.list({ limit: 2, after: 4 })).toBe(last)
      expect(await cache.list({ limit: 2 })).toBe(first)
    }
    expect(counter.lists).toBe(5)
    await cache.create({ name: 'Pet 6', categoryId: 1 })
    expect(await cache.list({ limit: 2, after: 2 })).toBe(middle)
    expect(await cache.list({ limit: 2 })).toBe(first)
    const lastNow = await cache.list({ limit: 2, after: 4 })
    expect(lastNow.pets.map((pet) => pet.name)).toEqual(['Pet 5', 'Pet 6'])
    expect(lastNow.more).toBe(false)
    // Dropped by the create, the last page is read anew: kept again from its second read.
    expect(counter.lists).toBe(6)
    expect(await cache.list({ limit: 2, after: 4 })).not.toBe(lastNow)
    expect(counter.lists).toBe(7)
    expect(cache.lookups()).toEqual({ hits: 11, misses: 7 })
  })

  test('a status page without a next one is read again after a create: the new pet may follow it', async () => {
    const db = openDatabase(':memory:')
    const { wrapped, counter } = counted(new SqlitePetStore(db))
    const cache = new CachedPetStore(wrapped, new DataVersionWatcher(db))
    await cache.create({ name: 'Sold', categoryId: 1, status: 'sold' })
    const sold = await cache.list({ limit: 1, status: 'sold', after: 0 })
    expect(sold.more).toBe(false)
    await cache.create({ name: 'Also sold', categoryId: 1, status: 'sold' })
    expect((await cache.list({ limit: 1, status: 'sold', after: 0 })).more).toBe(true)
    expect(counter.lists).toBe(2)
  })

  test(`keeps at most ${LATER_PAGES_KEPT} later pages, dropping the least recently read`, async () => {
    const db = openDatabase(':memory:')
    const { wrapped, counter } = counted(new SqlitePetStore(db))
    const cache = new CachedPetStore(wrapped, new DataVersionWatcher(db))
    // Each read twice: kept from the second read.
    for (let after = 1; after <= LATER_PAGES_KEPT; after++) {
      await cache.list({ limit: 1, after })
      await cache.list({ limit: 1, after })
    }
    await cache.list({ limit: 1, after: 1 })
    expect(counter.lists).toBe(2 * LATER_PAGES_KEPT)
    // One more page: the least recently read (after 2, since after 1 was just read again) makes room.
    await cache.list({ limit: 1, after: LATER_PAGES_KEPT + 1 })
    await cache.list({ limit: 1, after: LATER_PAGES_KEPT + 1 })
    await cache.list({ limit: 1, after: 1 })
    expect(counter.lists).toBe(2 * LATER_PAGES_KEPT + 2)
    await cache.list({ limit: 1, after: 2 })
    expect(counter.lists).toBe(2 * LATER_PAGES_KEPT + 3)
  })

  test('a later page read once is not kept: random pages and a client walking the list do not churn memory', async () => {
    const db = openDatabase(':memory:')
    const { wrapped, counter } = counted(new SqlitePetStore(db))
    const cache = new CachedPetStore(wrapped, new DataVersionWatcher(db))
    for (let i = 1; i <= 10; i++) await cache.create({ name: `Pet ${i}`, categoryId: 1 })
    for (let after = 1; after <= 8; after++) await cache.list({ limit: 1, after })
    expect(counter.lists).toBe(8)
    expect(cache.lookups()).toEqual({ hits: 0, misses: 8 })
    // The second read of one keeps it; the third is answered from memory.
    const again = await cache.list({ limit: 1, after: 3 })
    expect(await cache.list({ limit: 1, after: 3 })).toBe(again)
    expect(counter.lists).toBe(9)
  })
})

describe('CachedPetStore under change', () => {
  /** A PRNG with a seed, so a failure can be replayed (mulberry32). */
  function random(seed: number) {
    let state = seed >>> 0
    return (below: number) => {
      state = (state + 0x6d2b79f5) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below)
    }
  }
  const STATUSES = ['available', 'pending', 'sold'] as const

  test.each([1, 2, 3, 4, 5])(
    'answers every page as SQLite does, through 3,000 random creates, updates, deletes and reads (seed %p)',
    async (seed) => {
      const db = openDatabase(':memory:')
      const plain = new SqlitePetStore(db)
      const cache = new CachedPetStore(new SqlitePetStore(db), new DataVersionWatcher(db))
      const pick = random(seed)
      let highest = 0
      for (let step = 0; step < 3000; step++) {
        const roll = pick(100)
        const id = 1 + pick(highest + 2)
        if (roll < 10) {
          const created = await cache.create({ name: `n${step}`, categoryId: 1, status: STATUSES[pick(3)] })
          if (created.kind === 'created') highest = created.pet.id
        } else if (roll < 25) {
          const changes = pick(2) === 0 ? { status: STATUSES[pick(3)] } : { name: `r${step}` }
          await cache.update(id, changes)
        } else if (roll < 30) {
          await cache.delete(id)
        } else {
          // Reads repeat a few queries often, so pages are kept (later pages from their second read).
          const query = {
            limit: 1 + pick(4),
            status: pick(3) === 0 ? undefined : STATUSES[pick(3)],
            after: [0, 0, 3, 10, 30, pick(highest + 1)][pick(6)],
          }
          const expected = plain.list(query)
          expect({ step, query, page: await cache.list(query) }).toEqual({ step, query, page: expected })
        }
      }
      expect(cache.lookups().hits).toBeGreaterThan(300)
    },
  )
})
