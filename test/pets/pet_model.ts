import { expect } from 'bun:test'
import { entityTag } from '../../src/http/conditional'
import { pageTag } from '../../src/pets/answers'

/**
 * A plain model of the pets an API holds, and a driver that sends random
 * interleavings of every operation on them (create, update, delete, list
 * with and without a status at every limit, following Link, get, the
 * inventory, conditional requests) and compares each answer's status, body,
 * ETag and Link with what the model says. `send` may go to one app or to
 * several processes sharing one database: every acknowledged change must be
 * seen by the very next read, wherever it goes.
 */

type Status = 'available' | 'pending' | 'sold'
interface Pet {
  id: number
  name: string
  categoryId: number
  status: Status
}

/** One request of the driver, and the answer to compare. */
export type Send = (method: string, path: string, headers?: Record<string, string>, body?: unknown) => Promise<Response>

const STATUSES: Status[] = ['available', 'pending', 'sold']
const MOVES: Record<Status, Status[]> = { available: ['pending', 'sold'], pending: ['available', 'sold'], sold: [] }
const LIMITS = [1, 2, 3, 5, 20, 100]
const BASE = 'http://localhost'

/** A PRNG with a seed (mulberry32), so a failing run can be replayed. */
export function random(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    below: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
  }
}

/** What the driver did, for the failure message and the closing figures. */
export interface DriveReport {
  steps: number
  counts: Record<string, number>
}

/**
 * Runs `steps` random operations through `send` and checks every answer
 * against the model. `base` is the origin the answers' `Link` headers name.
 */
export async function driveAgainstModel(
  send: Send,
  { seed, steps, base = BASE }: { seed: number; steps: number; base?: string },
): Promise<DriveReport> {
  const rng = random(seed)
  const pets = new Map<number, Pet>()
  const everUsed = new Set<number>()
  /** Tags seen for each URL (any age), to send back as If-None-Match. */
  const seenTags = new Map<string, string[]>()
  /** Tags each pet had (any age), to send as If-Match. */
  const petTags = new Map<number, string[]>()
  const links: string[] = []
  const counts: Record<string, number> = {}
  const tagOf = (pet: Pet) => entityTag(JSON.stringify(pet))
  const remember = (map: Map<string | number, string[]>, key: string | number, tag: string | null) => {
    if (tag === null) return
    const tags = map.get(key) ?? []
    if (!tags.includes(tag)) tags.push(tag)
    if (tags.length > 8) tags.shift()
    map.set(key, tags)
  }
  const sorted = () => [...pets.values()].sort((a, b) => a.id - b.id)
  const anyId = () => {
    const ids = [...everUsed]
    if (ids.length === 0 || rng.chance(0.1)) return 1 + rng.below(Math.max(...ids, 0) + 3)
    return rng.pick(ids)
  }
  const step = async (index: number) => {
    const roll = rng.below(100)
    const context = (what: string) => `step ${index} (seed ${seed}): ${what}`
    if (roll < 14) {
      counts.create = (counts.create ?? 0) + 1
      const pet = { name: `pet ${index}`, categoryId: 1 + rng.below(50), status: rng.pick(STATUSES) }
      const response = await send('POST', '/v1/pets', {}, pet)
      const created = (await response.json()) as Pet
      expect({ at: context('create'), status: response.status }).toEqual({ at: context('create'), status: 201 })
      const highest = Math.max(0, ...everUsed)
      expect({ at: context('create: a new id, above every other'), fresh: created.id > highest }).toEqual({
        at: context('create: a new id, above every other'),
        fresh: true,
      })
      expect(created).toEqual({ id: created.id, ...pet })
      pets.set(created.id, created)
      everUsed.add(created.id)
      return
    }
    if (roll < 32) {
      counts.update = (counts.update ?? 0) + 1
      const id = anyId()
      const current = pets.get(id)
      const changes: Partial<Pet> = {}
      if (rng.chance(0.3)) changes.name = `renamed ${index}`
      if (rng.chance(0.2)) changes.categoryId = 1 + rng.below(50)
      if (rng.chance(0.6)) changes.status = rng.pick(STATUSES)
      const headers: Record<string, string> = {}
      const known = petTags.get(id) ?? []
      if (known.length > 0 && rng.chance(0.5)) headers['if-match'] = rng.pick(known)
      const response = await send('PATCH', `/v1/pets/${id}`, headers, changes)
      const body = await response.text()
      let expected: { status: number; pet?: Pet }
      if (current === undefined) expected = { status: 404 }
      else if (headers['if-match'] !== undefined && headers['if-match'] !== tagOf(current)) expected = { status: 412 }
      else if (
        changes.status !== undefined &&
        changes.status !== current.status &&
        !MOVES[current.status].includes(changes.status)
      )
        expected = { status: 409 }
      else expected = { status: 200, pet: { ...current, ...changes } }
      expect({
        at: context(`PATCH ${id} ${JSON.stringify(changes)} ${JSON.stringify(headers)}`),
        status: response.status,
      }).toEqual({
        at: context(`PATCH ${id} ${JSON.stringify(changes)} ${JSON.stringify(headers)}`),
        status: expected.status,
      })
      if (expected.pet !== undefined) {
        const pet = { id, name: expected.pet.name, categoryId: expected.pet.categoryId, status: expected.pet.status }
        expect(body).toBe(JSON.stringify(pet))
        expect(response.headers.get('etag')).toBe(tagOf(pet))
        pets.set(id, pet)
        remember(petTags, id, tagOf(pet))
      }
      return
    }
    if (roll < 38) {
      counts.delete = (counts.delete ?? 0) + 1
      const id = anyId()
      const current = pets.get(id)
      const headers: Record<string, string> = {}
      const known = petTags.get(id) ?? []
      if (known.length > 0 && rng.chance(0.3)) headers['if-match'] = rng.pick(known)
      const response = await send('DELETE', `/v1/pets/${id}`, headers)
      await response.arrayBuffer()
      const expected =
        current === undefined
          ? 404
          : headers['if-match'] !== undefined && headers['if-match'] !== tagOf(current)
            ? 412
            : 204
      expect({ at: context(`DELETE ${id} ${JSON.stringify(headers)}`), status: response.status }).toEqual({
        at: context(`DELETE ${id} ${JSON.stringify(headers)}`),
        status: expected,
      })
      if (expected === 204) pets.delete(id)
      return
    }
    if (roll < 50) {
      counts.get = (counts.get ?? 0) + 1
      const id = anyId()
      const path = `/v1/pets/${id}`
      const current = pets.get(id)
      const headers = conditional(path)
      const response = await send('GET', path, headers)
      const body = await response.text()
      if (current === undefined) {
        expect({ at: context(`GET ${path}`), status: response.status }).toEqual({
          at: context(`GET ${path}`),
          status: 404,
        })
        return
      }
      const json = JSON.stringify(current)
      expectConditional(context(`GET ${path}`), response, body, headers, json, entityTag(json))
      remember(seenTags, path, response.headers.get('etag'))
      remember(petTags, id, response.headers.get('etag'))
      return
    }
    if (roll < 58) {
      counts.inventory = (counts.inventory ?? 0) + 1
      const path = '/v1/store/inventory'
      const inventory = { available: 0, pending: 0, sold: 0 }
      for (const pet of pets.values()) inventory[pet.status]++
      const headers = conditional(path)
      const response = await send('GET', path, headers)
      const json = JSON.stringify(inventory)
      expectConditional(context('GET inventory'), response, await response.text(), headers, json, entityTag(json))
      remember(seenTags, path, response.headers.get('etag'))
      return
    }
    counts.list = (counts.list ?? 0) + 1
    let path: string
    if (links.length > 0 && rng.chance(0.3)) {
      counts['list by Link'] = (counts['list by Link'] ?? 0) + 1
      path = rng.pick(links)
    } else {
      const limit = rng.pick(LIMITS)
      const status = rng.chance(0.4) ? rng.pick(STATUSES) : undefined
      const ids = [...everUsed]
      const after = ids.length === 0 || rng.chance(0.5) ? undefined : rng.pick([0, ...ids])
      path = `/v1/pets?limit=${limit}${status ? `&status=${status}` : ''}${after === undefined ? '' : `&after=${after}`}`
    }
    const query = new URL(path, BASE).searchParams
    const limit = Number(query.get('limit'))
    const status = query.get('status') ?? undefined
    const after = Number(query.get('after') ?? 0)
    const matching = sorted().filter((pet) => pet.id > after && (status === undefined || pet.status === status))
    const page = matching.slice(0, limit)
    const more = matching.length > limit
    const json = JSON.stringify(page)
    const headers = conditional(path)
    const response = await send('GET', path, headers)
    const body = await response.text()
    expectConditional(context(`GET ${path}`), response, body, headers, json, pageTag(json, more))
    const last = page.at(-1)
    // A 304 stands for the 200 it confirms; it carries the ETag, not the Link (RFC 9110 §15.4.5).
    const link =
      response.status === 200 && more && last
        ? `<${base}/v1/pets?limit=${limit}${status ? `&status=${status}` : ''}&after=${last.id}>; rel="next"`
        : null
    expect({ at: context(`GET ${path}: Link`), link: response.headers.get('link') }).toEqual({
      at: context(`GET ${path}: Link`),
      link,
    })
    remember(seenTags, path, response.headers.get('etag'))
    if (more && last) {
      const next = `/v1/pets?limit=${limit}${status ? `&status=${status}` : ''}&after=${last.id}`
      if (!links.includes(next)) links.push(next)
      if (links.length > 30) links.shift()
    }
  }
  /** Sometimes an If-None-Match for `path`: a tag seen for it before, current or stale. */
  const conditional = (path: string): Record<string, string> => {
    const known = seenTags.get(path) ?? []
    return known.length > 0 && rng.chance(0.4) ? { 'if-none-match': rng.pick(known) } : {}
  }
  for (let index = 0; index < steps; index++) await step(index)
  return { steps, counts }
}

/** A read's answer: a 304 exactly when If-None-Match names the current tag, else 200 with the body and the tag. */
function expectConditional(
  at: string,
  response: Response,
  body: string,
  headers: Record<string, string>,
  json: string,
  etag: string,
): void {
  const fresh = headers['if-none-match'] === etag
  expect({ at, status: response.status, etag: response.headers.get('etag') }).toEqual({
    at,
    status: fresh ? 304 : 200,
    etag,
  })
  if (!fresh) expect({ at, body }).toEqual({ at, body: json })
}
