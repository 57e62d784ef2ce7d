import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../helpers'
import { createUnlimitedKey, postPet, startServer } from './process_helpers'

interface Order {
  id: number
  petId: number
  status: string
  placedAt: string
  updatedAt: string
}

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
    key = await createUnlimitedKey(db)
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
      await killMidStream(round, async (url, n, killed) => {
        for (let i = 0; !killed(); i++) {
          try {
            const response = await postPet(url, key, {
              name: `round ${round} client ${n} pet ${i} ✓`,
              categoryId: 1 + i,
              status: statuses[i % 3],
            })
            if (response.status === 201) acknowledged.push((await response.json()) as Pet)
          } catch {
            return // the server is gone
          }
        }
      })
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

  test('keeps every acknowledged update and delete through three kill -9s mid-stream', async () => {
    const first = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    const created: Pet[] = []
    try {
      for (let i = 0; i < 60; i++) {
        const response = await postPet(first.url, key, { name: `changing ${i}`, categoryId: 1 })
        created.push((await response.json()) as Pet)
      }
    } finally {
      await first.stop()
    }
    // Each client changes its own pets, one request at a time, so a pet's last acknowledged state is known;
    // the one change in flight when the process dies may or may not have landed.
    const acknowledged = new Map<number, Pet | null>(created.map((pet) => [pet.id, pet]))
    const inFlight = new Map<number, Pet | null>()
    let changes = 0
    for (let round = 0; round < 3; round++) {
      await killMidStream(round, async (url, n, killed) => {
        const mine = created.filter((_, i) => i % 6 === n)
        for (let i = 0; !killed(); i++) {
          const alive = mine.filter((pet) => acknowledged.get(pet.id))
          if (alive.length === 0) return
          const pet = alive[i % alive.length]!
          const before = acknowledged.get(pet.id) as Pet
          const deleting = i % 17 === 16
          const after: Pet | null = deleting
            ? null
            : {
                ...before,
                name: `round ${round} change ${i}`,
                status: before.status === 'available' ? 'pending' : 'available',
              }
          inFlight.set(pet.id, after)
          try {
            const response = await fetch(`${url}/v1/pets/${pet.id}`, {
              method: deleting ? 'DELETE' : 'PATCH',
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body: deleting ? undefined : JSON.stringify({ name: after?.name, status: after?.status }),
            })
            if (response.status !== (deleting ? 204 : 200)) throw new Error(`status ${response.status}`)
            await response.arrayBuffer()
            acknowledged.set(pet.id, after)
            inFlight.delete(pet.id)
            changes++
          } catch {
            return // the server is gone
          }
        }
      })
      // What was in flight may have landed: from here on either state may be the stored one.
      for (const [id, state] of inFlight) {
        const stored = await storedAfterRestart(id)
        acknowledged.set(id, stored === undefined ? null : stored)
        expect([JSON.stringify(state), JSON.stringify(acknowledged.get(id))]).toContain(JSON.stringify(stored ?? null))
      }
      inFlight.clear()
    }
    expect(changes).toBeGreaterThan(50)
    expect([...acknowledged.values()].filter((pet) => pet === null).length).toBeGreaterThan(0)
    const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    try {
      const stored = await allPets(server.url)
      for (const [id, state] of acknowledged)
        expect({ id, stored: stored.get(id) ?? null }).toEqual({ id, stored: state })
    } finally {
      await server.stop()
    }
  }, 90_000)

  test('keeps every acknowledged order, delivery and cancellation through three kill -9s mid-stream', async () => {
    const pool: number[] = []
    await withServer(async (url) => {
      for (let i = 0; i < 60; i++)
        pool.push(((await (await postPet(url, key, { name: `for sale ${i}`, categoryId: 1 })).json()) as Pet).id)
    })
    // Each client sells its own pets, one request at a time, so each order's last acknowledged status is
    // known; the one request in flight when the process dies may or may not have landed, and is read back.
    const orders = new Map<number, Order>()
    const openOrderOf = new Map<number, number>()
    const soldPets = new Set<number>()
    let inFlight: { petId: number; orderId?: number; to?: string }[] = []
    let acknowledgedChanges = 0
    const send = (url: string, method: string, path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    for (let round = 0; round < 3; round++) {
      await killMidStream(round, async (url, n, killed) => {
        const mine = pool.filter((_, i) => i % 6 === n)
        for (let i = 0; !killed(); i++) {
          const usable = mine.filter((petId) => !soldPets.has(petId))
          if (usable.length === 0) return
          const petId = usable[i % usable.length]!
          const open = openOrderOf.get(petId)
          // Three in four orders are cancelled, so the pets last the rounds.
          const to = i % 4 === 3 ? 'delivered' : 'cancelled'
          const pending = open === undefined ? { petId } : { petId, orderId: open, to }
          inFlight.push(pending)
          try {
            const response =
              open === undefined
                ? await send(url, 'POST', '/v1/store/orders', { petId })
                : await send(url, 'PATCH', `/v1/store/orders/${open}`, { status: to })
            if (response.status !== (open === undefined ? 201 : 200)) throw new Error(`status ${response.status}`)
            adopt((await response.json()) as Order)
            inFlight = inFlight.filter((request) => request !== pending)
            acknowledgedChanges++
          } catch {
            return // the server is gone
          }
        }
      })
      // What was in flight may have landed: read it back, and from here on take what is stored.
      await withServer(async (url) => {
        for (const { petId, orderId, to } of inFlight) {
          if (orderId !== undefined) {
            const stored = (await (await get(url, `/v1/store/orders/${orderId}`)).json()) as Order
            expect(['placed', to]).toContain(stored.status)
            adopt(stored)
            continue
          }
          // A placement that landed is the pet's one placed order, unknown to the clients.
          const placed = await (await get(url, `/v1/store/orders?petId=${petId}&status=placed`)).json()
          for (const order of placed as Order[]) if (!orders.has(order.id)) adopt(order)
        }
      })
      inFlight = []
    }
    expect(acknowledgedChanges).toBeGreaterThan(50)
    await withServer(async (url) => {
      const listed = new Map<number, Order>()
      let next: string | undefined = '/v1/store/orders?limit=100'
      while (next) {
        const response: Response = await get(url, next)
        for (const order of (await response.json()) as Order[]) listed.set(order.id, order)
        next = /^<[^>]*(\/v1\/[^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1]
      }
      expect([...listed.values()]).toEqual([...orders.values()].sort((a, b) => a.id - b.id))
      const pets = await allPets(url)
      for (const petId of pool) {
        const expected = soldPets.has(petId) ? 'sold' : openOrderOf.has(petId) ? 'pending' : 'available'
        expect({ petId, status: pets.get(petId)?.status }).toEqual({ petId, status: expected })
      }
    })

    /** Takes `order` as stored: its pet's open order and whether the pet is sold follow. */
    function adopt(order: Order): void {
      orders.set(order.id, order)
      if (order.status === 'placed') openOrderOf.set(order.petId, order.id)
      else openOrderOf.delete(order.petId)
      if (order.status === 'delivered') soldPets.add(order.petId)
    }
  }, 90_000)

  const get = (url: string, path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })

  /** Runs `work` against a server started on the database for the purpose, then stops it. */
  async function withServer(work: (url: string) => Promise<void>): Promise<void> {
    const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    try {
      await work(server.url)
    } finally {
      await server.stop()
    }
  }

  /**
   * Starts a server on the database, lets six clients work on it (each told
   * its number and whether the server is gone yet), and kills it with
   * SIGKILL mid-stream, a little later in each round.
   */
  async function killMidStream(
    round: number,
    client: (url: string, n: number, killed: () => boolean) => Promise<void>,
  ): Promise<void> {
    const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    let killed = false
    const clients = Array.from({ length: 6 }, (_, n) => client(server.url, n, () => killed))
    await Bun.sleep(250 + round * 100)
    server.proc.kill('SIGKILL')
    killed = true
    await server.proc.exited
    await Promise.all(clients)
  }

  /** A pet as the database holds it, read by a server started for the purpose; undefined when there is none. */
  async function storedAfterRestart(id: number): Promise<Pet | undefined> {
    const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'warn' })
    try {
      const response = await fetch(`${server.url}/v1/pets/${id}`, { headers: { authorization: `Bearer ${key}` } })
      return response.status === 200 ? ((await response.json()) as Pet) : undefined
    } finally {
      await server.stop()
    }
  }
})
