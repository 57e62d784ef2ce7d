import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { sqliteStores } from '../../src/backends'
import { DataVersionWatcher } from '../../src/db/data_version'
import { openDatabase } from '../../src/db/sqlite'
import { canMove } from '../../src/pets/changes'
import { CachedPetStore } from '../../src/pets/page_cache'
import { PostgresPetStore } from '../../src/pets/postgres_store'
import type { PetStatus } from '../../src/pets/schema'
import { SqlitePetStore } from '../../src/pets/sqlite_store'
import type { PetStore } from '../../src/pets/store'
import { tempDir } from '../helpers'
import { postgresPools, SHARED_STORES } from '../shared_services'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Every engine a PetStore has, each made fresh: two stores on one database, as two instances (or one) hold them. */
const ENGINES: [string, () => Promise<[PetStore, PetStore]>][] = [
  [
    'SQLite',
    async () => {
      const store = new SqlitePetStore(openDatabase(':memory:'))
      return [store, store]
    },
  ],
  [
    'SQLite behind the page cache',
    async () => {
      const db = openDatabase(':memory:')
      const store = new CachedPetStore(new SqlitePetStore(db), new DataVersionWatcher(db))
      return [store, store]
    },
  ],
  [
    // Each as a server composes it: the page cache, and the reads of a turn in one snapshot (db/turn_reads.ts).
    'a SQLite file, two servers on it',
    async () => {
      const workspace = tempDir('animal-store-pet-contract-')
      const path = join(workspace.dir, 'store.sqlite')
      const servers = [openDatabase(path), openDatabase(path)].map(sqliteStores)
      cleanups.push(() => {
        for (const { close } of servers) close()
        workspace.cleanup()
      })
      return [servers[0]!.pets, servers[1]!.pets]
    },
  ],
  [
    'PostgreSQL, two instances',
    async () => {
      const [a, b] = await postgresPools(2, cleanups)
      return [new PostgresPetStore(a!), new PostgresPetStore(b!)]
    },
  ],
]

const STATUSES: PetStatus[] = ['available', 'pending', 'sold']

for (const [engine, open] of ENGINES) {
  describe.skipIf(engine.startsWith('PostgreSQL') && !SHARED_STORES)(`the PetStore contract on ${engine}`, () => {
    test('an update changes the fields it names, keeps the others, and says what the pet was', async () => {
      const [store, other] = await open()
      const created = await store.create({ name: 'Rex', categoryId: 1 })
      if (created.kind !== 'created') throw new Error(created.kind)
      const { id } = created.pet
      expect(await store.update(id, { name: 'Max' })).toEqual({
        kind: 'updated',
        pet: { id, name: 'Max', categoryId: 1, status: 'available' },
        previous: { id, name: 'Rex', categoryId: 1, status: 'available' },
      })
      expect(await other.get(id)).toEqual({ id, name: 'Max', categoryId: 1, status: 'available' })
      const nothing = await store.update(id, {})
      expect(nothing).toMatchObject({ kind: 'updated', pet: { id, name: 'Max', categoryId: 1, status: 'available' } })
      expect((await other.list({ limit: 10 })).pets).toEqual([{ id, name: 'Max', categoryId: 1, status: 'available' }])
    })

    test('a status moves only as the contract says: sold is final, the same status is no move', async () => {
      const [store] = await open()
      for (const from of STATUSES)
        for (const to of STATUSES) {
          const created = await store.create({ name: `${from}->${to}`, categoryId: 1, status: from })
          if (created.kind !== 'created') throw new Error(created.kind)
          const outcome = await store.update(created.pet.id, { status: to })
          const allowed = from === to || (from !== 'sold' && to !== from)
          expect({ from, to, allowed: canMove(from, to) }).toEqual({ from, to, allowed })
          expect({ from, to, outcome }).toEqual({
            from,
            to,
            outcome: allowed
              ? { kind: 'updated', pet: { ...created.pet, status: to }, previous: created.pet }
              : { kind: 'invalid_transition', from, to },
          })
          expect((await store.get(created.pet.id))?.status).toBe(allowed ? to : from)
        }
    })

    test('a precondition that fails changes nothing; it is asked after the pet is found, before the move', async () => {
      const [store] = await open()
      const created = await store.create({ name: 'Rex', categoryId: 1, status: 'sold' })
      if (created.kind !== 'created') throw new Error(created.kind)
      const { id } = created.pet
      const never = () => false
      expect(await store.update(id + 1000, { name: 'X' }, never)).toEqual({ kind: 'not_found' })
      expect(await store.update(id, { status: 'available' }, never)).toEqual({ kind: 'precondition_failed' })
      expect(await store.update(id, { name: 'X' }, (pet) => pet.name === 'Rex')).toMatchObject({ kind: 'updated' })
      expect(await store.delete(id, never)).toEqual({ kind: 'precondition_failed' })
      expect(await store.get(id)).toEqual({ id, name: 'X', categoryId: 1, status: 'sold' })
    })

    test('a delete removes the pet from gets, lists and the inventory; a second one finds nothing', async () => {
      const [store, other] = await open()
      const made = []
      for (const name of ['a', 'b', 'c']) {
        const created = await store.create({ name, categoryId: 1 })
        if (created.kind === 'created') made.push(created.pet)
      }
      const [, middle] = made
      expect(await store.delete(middle!.id)).toEqual({ kind: 'deleted', pet: middle! })
      expect(await other.get(middle!.id)).toBeUndefined()
      expect((await other.list({ limit: 10 })).pets.map((pet) => pet.name)).toEqual(['a', 'c'])
      expect(await other.delete(middle!.id)).toEqual({ kind: 'not_found' })
      expect(await other.inventory()).toEqual({ available: 2, pending: 0, sold: 0 })
    })

    test("never gives a deleted pet's id to a new one, even the highest", async () => {
      const [store] = await open()
      const ids: number[] = []
      for (const name of ['a', 'b', 'c']) {
        const created = await store.create({ name, categoryId: 1 })
        if (created.kind === 'created') ids.push(created.pet.id)
      }
      await store.delete(ids[2]!)
      const next = await store.create({ name: 'd', categoryId: 1 })
      expect(next.kind === 'created' && next.pet.id).toBe(ids[2]! + 1)
    })

    test('the inventory counts every status exactly through creates, moves and deletes', async () => {
      const [store, other] = await open()
      expect(await store.inventory()).toEqual({ available: 0, pending: 0, sold: 0 })
      const ids: number[] = []
      for (let i = 0; i < 9; i++) {
        const created = await store.create({ name: `p${i}`, categoryId: 1 + i, status: STATUSES[i % 3] })
        if (created.kind === 'created') ids.push(created.pet.id)
      }
      expect(await other.inventory()).toEqual({ available: 3, pending: 3, sold: 3 })
      await store.update(ids[0]!, { status: 'pending' })
      await store.update(ids[1]!, { status: 'sold' })
      await store.update(ids[2]!, { status: 'available' })
      await store.update(ids[3]!, { name: 'renamed' })
      await store.delete(ids[4]!)
      expect(await other.inventory()).toEqual({ available: 2, pending: 2, sold: 4 })
    })

    test('of 50 concurrent updates that expect one state, exactly one changes the pet', async () => {
      const [store, other] = await open()
      const created = await store.create({ name: 'Rex', categoryId: 1 })
      if (created.kind !== 'created') throw new Error(created.kind)
      const { id } = created.pet
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? store : other).update(id, { name: `try ${i}` }, (pet) => pet.name === 'Rex'),
        ),
      )
      const won = outcomes.filter((outcome) => outcome.kind === 'updated')
      expect(won).toHaveLength(1)
      expect(outcomes.filter((outcome) => outcome.kind === 'precondition_failed')).toHaveLength(49)
      expect((await other.get(id))?.name).toBe((won[0] as { pet: { name: string } }).pet.name)
    })
  })
}
