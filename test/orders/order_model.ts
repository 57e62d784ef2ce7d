import { expect } from 'bun:test'
import { random, type Send } from '../pets/pet_model'

/**
 * A plain model of a store that sells: a small pool of pets and the orders
 * one key line places on them. The driver sends random sequences of pet
 * creates, pet updates (status moves included), pet deletes, placements,
 * deliveries, cancellations and order reads, compares each answer's status
 * (and body, where the model knows it) with the model, and after every step
 * reads the whole store back from the service and checks the invariants:
 * - a pet has at most one `placed` order;
 * - a `pending` pet has exactly one `placed` order, unless it was set
 *   pending directly (then none);
 * - a `sold` pet has exactly one `delivered` order, unless it was set sold
 *   directly (then none);
 * - every order names a pet that exists (a pet an order names is never
 *   deleted), and the inventory's counts are those of the pets listed.
 * `send` may go to one app or to several processes sharing one database.
 */

type PetStatus = 'available' | 'pending' | 'sold'
type OrderStatus = 'placed' | 'delivered' | 'cancelled'
interface Pet {
  id: number
  name: string
  categoryId: number
  status: PetStatus
}
interface Order {
  id: number
  petId: number
  status: OrderStatus
  placedAt: string
  updatedAt: string
}

const PET_STATUSES: PetStatus[] = ['available', 'pending', 'sold']
const PET_MOVES: Record<PetStatus, PetStatus[]> = {
  available: ['pending', 'sold'],
  pending: ['available', 'sold'],
  sold: [],
}

/** What the driver did, for the failure message and the closing figures. */
export interface OrderDriveReport {
  steps: number
  counts: Record<string, number>
  /** How many times the invariants were checked against the store as the service reads it back. */
  invariantChecks: number
}

/** Reads every page of `path` (limit 100, following Link), as one array. */
async function readAll<T>(send: Send, path: string): Promise<T[]> {
  const items: T[] = []
  let next: string | undefined = `${path}?limit=100`
  while (next !== undefined) {
    const response = await send('GET', next)
    expect({ path: next, status: response.status }).toEqual({ path: next, status: 200 })
    items.push(...((await response.json()) as T[]))
    const link = response.headers.get('link')?.match(/^<([^>]+)>/)?.[1]
    next = link === undefined ? undefined : new URL(link).pathname + new URL(link).search
  }
  return items
}

/** Runs `steps` random operations through `send`, checking each answer and, after each, the invariants. */
export async function driveOrdersAgainstModel(
  send: Send,
  { seed, steps, pool = 8 }: { seed: number; steps: number; pool?: number },
): Promise<OrderDriveReport> {
  const rng = random(seed)
  const pets = new Map<number, Pet>()
  const orders = new Map<number, Order>()
  /** Every pet and order this run made: the service may hold others (made before it), which it leaves alone. */
  const mine = { pets: new Set<number>(), orders: new Set<number>() }
  /** Whether each pet's status was last set by an order (placed: pending, delivered: sold), not directly. */
  const byOrder = new Map<number, boolean>()
  const counts: Record<string, number> = {}
  let invariantChecks = 0
  const count = (what: string) => {
    counts[what] = (counts[what] ?? 0) + 1
  }
  const anyPetId = () => {
    const ids = [...pets.keys()]
    return ids.length === 0 || rng.chance(0.05) ? 1_000_000 + rng.below(1000) : rng.pick(ids)
  }
  const anyOrderId = () => {
    const ids = [...orders.keys()]
    return ids.length === 0 || rng.chance(0.05) ? 1_000_000 + rng.below(1000) : rng.pick(ids)
  }
  const placedFor = (petId: number) => [...orders.values()].filter((o) => o.petId === petId && o.status === 'placed')
  const expectStatus = (at: string, response: Response, status: number) =>
    expect({ at, status: response.status }).toEqual({ at, status })

  const step = async (index: number) => {
    const at = (what: string) => `step ${index} (seed ${seed}): ${what}`
    const roll = rng.below(100)
    if (roll < 12 || pets.size === 0) {
      if (pets.size >= pool) return
      count('create pet')
      const body = {
        name: `pet ${index}`,
        categoryId: 1 + rng.below(9),
        status: rng.chance(0.8) ? 'available' : rng.pick(PET_STATUSES),
      }
      const response = await send('POST', '/v1/pets', {}, body)
      expectStatus(at('create pet'), response, 201)
      const pet = (await response.json()) as Pet
      pets.set(pet.id, pet)
      mine.pets.add(pet.id)
      byOrder.set(pet.id, false)
      return
    }
    if (roll < 27) {
      count('update pet')
      const id = anyPetId()
      const status = rng.pick(PET_STATUSES)
      const changes = rng.chance(0.3) ? { name: `renamed ${index}`, status } : { status }
      const response = await send('PATCH', `/v1/pets/${id}`, {}, changes)
      const current = pets.get(id)
      const what = at(`PATCH pet ${id} ${JSON.stringify(changes)}`)
      if (current === undefined) return expectStatus(what, response, 404)
      const moves = status !== current.status
      if (moves && !PET_MOVES[current.status].includes(status)) return expectStatus(what, response, 409)
      if (moves && placedFor(id).length > 0) {
        expect({ at: what, code: ((await response.json()) as { code: string }).code }).toEqual({
          at: what,
          code: 'pet_has_open_order',
        })
        return
      }
      expectStatus(what, response, 200)
      const pet = { ...current, ...changes }
      expect((await response.json()) as Pet).toEqual(pet)
      pets.set(id, pet)
      if (moves) byOrder.set(id, false)
      return
    }
    if (roll < 33) {
      count('delete pet')
      const id = anyPetId()
      const response = await send('DELETE', `/v1/pets/${id}`)
      await response.arrayBuffer()
      const what = at(`DELETE pet ${id}`)
      if (!pets.has(id)) return expectStatus(what, response, 404)
      if ([...orders.values()].some((o) => o.petId === id)) return expectStatus(what, response, 409)
      expectStatus(what, response, 204)
      pets.delete(id)
      return
    }
    if (roll < 58) {
      count('place')
      const petId = anyPetId()
      const response = await send('POST', '/v1/store/orders', {}, { petId })
      const pet = pets.get(petId)
      const what = at(`place for pet ${petId} (${pet?.status ?? 'none'})`)
      if (pet === undefined) return expectStatus(what, response, 404)
      if (pet.status !== 'available') return expectStatus(what, response, 409)
      expectStatus(what, response, 201)
      const order = (await response.json()) as Order
      expect(order).toMatchObject({ petId, status: 'placed' })
      orders.set(order.id, order)
      mine.orders.add(order.id)
      pets.set(petId, { ...pet, status: 'pending' })
      byOrder.set(petId, true)
      return
    }
    if (roll < 80) {
      const to: OrderStatus = rng.chance(0.5) ? 'delivered' : 'cancelled'
      count(to === 'delivered' ? 'deliver' : 'cancel')
      const id = anyOrderId()
      const response = await send('PATCH', `/v1/store/orders/${id}`, {}, { status: to })
      const current = orders.get(id)
      const what = at(`PATCH order ${id} ${current?.status ?? 'none'} -> ${to}`)
      if (current === undefined) return expectStatus(what, response, 404)
      if (current.status !== 'placed' && current.status !== to) return expectStatus(what, response, 409)
      expectStatus(what, response, 200)
      const order = (await response.json()) as Order
      expect(order).toMatchObject({ id, petId: current.petId, status: to, placedAt: current.placedAt })
      orders.set(id, order)
      if (current.status === 'placed') {
        const pet = pets.get(current.petId) as Pet
        pets.set(pet.id, { ...pet, status: to === 'delivered' ? 'sold' : 'available' })
        byOrder.set(pet.id, true)
      }
      return
    }
    count('get order')
    const id = anyOrderId()
    const response = await send('GET', `/v1/store/orders/${id}`)
    const current = orders.get(id)
    if (current === undefined) return expectStatus(at(`GET order ${id}`), response, 404)
    expect((await response.json()) as Order).toEqual(current)
  }

  /** The store as the service reads it back, against the model and the invariants. */
  const checkInvariants = async (index: number) => {
    invariantChecks++
    const at = `after step ${index} (seed ${seed})`
    const listedPets = await readAll<Pet>(send, '/v1/pets')
    const listedOrders = await readAll<Order>(send, '/v1/store/orders')
    const myPets = listedPets.filter((pet) => mine.pets.has(pet.id))
    const myOrders = listedOrders.filter((order) => mine.orders.has(order.id))
    expect({ at, pets: myPets }).toEqual({ at, pets: [...pets.values()].sort((a, b) => a.id - b.id) })
    expect({ at, orders: myOrders }).toEqual({ at, orders: [...orders.values()].sort((a, b) => a.id - b.id) })
    const inventory = { available: 0, pending: 0, sold: 0 }
    for (const pet of listedPets) inventory[pet.status]++
    expect({ at, inventory: await (await send('GET', '/v1/store/inventory')).json() }).toEqual({ at, inventory })
    const byId = new Map(listedPets.map((pet) => [pet.id, pet]))
    for (const order of listedOrders)
      expect({ at, order: order.id, petExists: byId.has(order.petId) }).toEqual({
        at,
        order: order.id,
        petExists: true,
      })
    for (const pet of listedPets) {
      const ordersOf = listedOrders.filter((order) => order.petId === pet.id)
      const placed = ordersOf.filter((order) => order.status === 'placed').length
      const delivered = ordersOf.filter((order) => order.status === 'delivered').length
      // Every pet: a placed order only on a pending pet, a delivered one only on a sold pet, one at most.
      const anyPet = { at, pet: pet.id, status: pet.status, placed, delivered }
      expect(anyPet).toEqual({
        ...anyPet,
        placed: pet.status === 'pending' ? Math.min(placed, 1) : 0,
        delivered: pet.status === 'sold' ? Math.min(delivered, 1) : 0,
      })
      if (!mine.pets.has(pet.id)) continue
      const viaOrder = byOrder.get(pet.id) === true
      const facts = { at, pet: pet.id, status: pet.status, viaOrder, placed, delivered }
      // At most one placed order, only on a pending pet: exactly one when an order made it pending, none when
      // it was set pending directly. A delivered order only on a sold pet: exactly one when the order sold
      // it, none when it was set sold directly.
      const expected = {
        placed: pet.status === 'pending' && viaOrder ? 1 : 0,
        delivered: pet.status === 'sold' && viaOrder ? 1 : 0,
      }
      expect(facts).toEqual({ ...facts, ...expected })
    }
  }

  for (let index = 0; index < steps; index++) {
    await step(index)
    await checkInvariants(index)
  }
  return { steps, counts, invariantChecks }
}
