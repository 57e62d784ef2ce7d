import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../helpers'
import { postPet, runCli, startServer } from './process_helpers'

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

describe('durability', () => {
  let workspace: ReturnType<typeof tempDir>
  let db: string
  let key: string

  beforeAll(async () => {
    workspace = tempDir('animal-store-durable-')
    db = join(workspace.dir, 'store.sqlite')
    key = JSON.parse(
      (
        await runCli([
          'keys',
          'create',
          '--plan',
          'enterprise',
          '--rpm',
          '1000000',
          '--rpd',
          '1000000000',
          '--json',
          '--db',
          db,
        ])
      ).stdout,
    ).key
  })
  afterAll(() => workspace.cleanup())

  async function allPets(url: string): Promise<Map<number, Pet>> {
    const pets = new Map<number, Pet>()
    let next: string | undefined = `${url}/v1/pets?limit=100`
    while (next) {
      const response: Response = await fetch(next, { headers: { authorization: `Bearer ${key}` } })
      for (const pet of (await response.json()) as Pet[]) pets.set(pet.id, pet)
      next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1]
    }
    return pets
  }

  test('keeps every acknowledged pet through three kill -9s mid-stream', async () => {
    const acknowledged: Pet[] = []
    const statuses = ['available', 'pending', 'sold']
    for (let round = 0; round < 3; round++) {
      const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
      let killed = false
      const client = async (n: number) => {
        for (let i = 0; !killed; i++) {
          try {
            const response = await postPet(server.url, key, {
              name: `round ${round} client ${n} pet ${i} ✓`,
              categoryId: 1 + i,
              status: statuses[i % 3],
            })
            if (response.status === 201) acknowledged.push((await response.json()) as Pet)
          } catch {
            return // the server is gone
          }
        }
      }
      const clients = Array.from({ length: 6 }, (_, n) => client(n))
      await Bun.sleep(250 + round * 100)
      server.proc.kill('SIGKILL')
      killed = true
      await server.proc.exited
      await Promise.all(clients)
    }
    expect(acknowledged.length).toBeGreaterThan(50)

    const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    try {
      const stored = await allPets(server.url)
      const missing = acknowledged.filter((pet) => JSON.stringify(stored.get(pet.id)) !== JSON.stringify(pet))
      expect(missing).toEqual([])
    } finally {
      await server.stop()
    }
  }, 60_000)
})
