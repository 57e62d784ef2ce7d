import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openDatabase } from '../../src/db/sqlite'
import { closeDatabase } from '../../src/db/wal_ownership'
import { json } from '../helpers'
import { createUnlimitedKey, type FreshServer, postPet, startFreshServer } from './process_helpers'

/** Concurrent clients reading while the test writes, so each turn of the server serves many requests. */
const READERS = 16

describe('writes by another process to the database file, while the server is busy', () => {
  let fresh: FreshServer
  let key: string

  beforeAll(async () => {
    fresh = await startFreshServer({}, 'animal-store-other-writer-')
    key = await createUnlimitedKey(fresh.db)
    for (let i = 1; i <= 10; i++)
      expect((await postPet(fresh.server.url, key, { name: `Pet ${i}`, categoryId: 1 })).status).toBe(201)
  })
  afterAll(() => fresh.cleanup())

  const get = async (path: string) => {
    const response = await fetch(`${fresh.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
    expect(response.status).toBe(200)
    return json(response)
  }

  test('are in the answer to every request sent after their commit: kept pages, later pages, a pet, the inventory', async () => {
    let reading = true
    const readers = Array.from({ length: READERS }, async () => {
      // The pages the checks below read, kept by the page cache from their second read.
      while (reading) await Promise.all([get('/v1/pets?limit=5'), get('/v1/pets?limit=5&after=5'), get('/v1/pets/1')])
    })
    const other = openDatabase(fresh.db)
    try {
      const rename = other.prepare('UPDATE pets SET name = ?2 WHERE id = ?1')
      const move = other.prepare('UPDATE pets SET status = ?2 WHERE id = ?1')
      const add = other.prepare("INSERT INTO pets (name, category_id, status) VALUES (?1, 1, 'available') RETURNING id")
      for (let round = 1; round <= 40; round++) {
        const name = `Renamed ${round}`
        rename.run(1, name)
        rename.run(7, name)
        expect((await get('/v1/pets?limit=5'))[0].name).toBe(name)
        expect((await get('/v1/pets?limit=5&after=5'))[1].name).toBe(name)
        expect((await get('/v1/pets/1')).name).toBe(name)
        move.run(2, round % 2 === 0 ? 'available' : 'pending')
        const inventory = await get('/v1/store/inventory')
        expect(inventory.pending).toBe(round % 2 === 0 ? 0 : 1)
        const { id } = add.get(`Added ${round}`) as { id: number }
        expect((await get(`/v1/pets?limit=100&after=${id - 1}`)).map((pet: { id: number }) => pet.id)).toEqual([id])
      }
    } finally {
      reading = false
      await Promise.all(readers)
      closeDatabase(other)
    }
  }, 60_000)
})
