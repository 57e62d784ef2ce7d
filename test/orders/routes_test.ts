import { expect, test } from 'bun:test'
import { generateApiKey, hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { describeEachStore, expectError, json, makeTestApp, UNLIMITED } from '../helpers'

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' }

/** A fresh app with `count` available pets (ids 1 to count). */
async function withPets(count = 1, overrides = {}) {
  const made = await makeTestApp(overrides)
  for (let i = 1; i <= count; i++)
    expect((await made.call('POST', '/v1/pets', { body: { name: `Pet ${i}`, categoryId: 1 } })).status).toBe(201)
  const petStatus = async (id: number) => (await json(await made.call('GET', `/v1/pets/${id}`))).status
  const place = (petId: number, request: { key?: string; headers?: Record<string, string> } = {}) =>
    made.call('POST', '/v1/store/orders', { body: { petId }, ...request })
  return { ...made, petStatus, place }
}

describeEachStore('POST /v1/store/orders (experimental)', () => {
  test('places an order: 201, the Order, its Location; the pet is pending, everywhere at once', async () => {
    let now = Date.UTC(2026, 10, 25, 15, 20, 56, 123)
    const { call, place, petStatus } = await withPets(1, { clock: () => now })
    const placed = await place(1)
    expect(placed.status).toBe(201)
    expect(placed.headers.get('location')).toBe('http://localhost/v1/store/orders/1')
    expect(placed.headers.get('content-type')).toBe('application/json;charset=utf-8')
    expect(placed.headers.get('x-ratelimit-limit')).not.toBeNull()
    const order = await json(placed)
    expect(order).toEqual({
      id: 1,
      petId: 1,
      status: 'placed',
      placedAt: '2026-11-25T15:20:56.123Z',
      updatedAt: '2026-11-25T15:20:56.123Z',
    })
    expect(await petStatus(1)).toBe('pending')
    expect(placed.headers.get('etag')).toBe((await call('GET', '/v1/store/orders/1')).headers.get('etag'))
    expect(await json(await call('GET', '/v1/pets?status=available'))).toEqual([])
    expect(await json(await call('GET', '/v1/pets?status=pending'))).toHaveLength(1)
    expect(await json(await call('GET', '/v1/store/inventory'))).toEqual({ available: 0, pending: 1, sold: 0 })
    now += 1000
    expect(await json(await call('GET', '/v1/store/orders/1'))).toEqual(order)
  })

  test('an unknown pet is 404; a pet pending or sold is 409 pet_not_available; nothing is ordered', async () => {
    const { call, place } = await withPets(2)
    const missing = await expectError(await place(99), 404, 'not_found')
    expect(missing.message).toBe('Pet 99 does not exist')
    expect((await place(1)).status).toBe(201)
    const taken = await expectError(await place(1), 409, 'pet_not_available')
    expect(taken.message).toBe('Pet 1 is not available: it is reserved (pending); nothing was ordered')
    expect((await call('PATCH', '/v1/pets/2', { body: { status: 'sold' } })).status).toBe(200)
    const sold = await expectError(await place(2), 409, 'pet_not_available')
    expect(sold.message).toContain('it is sold')
    expect(await json(await call('GET', '/v1/store/orders'))).toHaveLength(1)
  })

  test.each([
    [{}, '"petId"'],
    [{ petId: 0 }, '"petId"'],
    [{ petId: '1' }, '"petId"'],
    [{ petId: 1.5 }, '"petId"'],
    [{ petId: null }, '"petId"'],
    [{ petId: 1, status: 'placed' }, '"status" is not an accepted property'],
  ])('%p is 400 naming the field, and orders nothing', async (body, message) => {
    const { call, petStatus } = await withPets(1)
    const error = await expectError(await call('POST', '/v1/store/orders', { body }), 400, 'invalid_request')
    expect(error.message).toContain(message)
    expect(await petStatus(1)).toBe('available')
  })

  test('refuses a body that is not JSON (415), an empty one, and an unknown query parameter', async () => {
    const { call } = await withPets(1)
    const text = { body: '{"petId":1}', headers: { 'content-type': 'text/plain' } }
    await expectError(await call('POST', '/v1/store/orders', text), 415, 'unsupported_media_type')
    await expectError(await call('POST', '/v1/store/orders', { body: '' }), 400, 'invalid_request')
    const query = await expectError(
      await call('POST', '/v1/store/orders?force=1', { body: { petId: 1 } }),
      400,
      'invalid_request',
    )
    expect(query.message).toContain('"force"')
  })

  test('an Idempotency-Key replays the first 201 (the pet pending by then), and refuses another body with 422', async () => {
    const { call, place } = await withPets(2)
    const headers = { 'idempotency-key': 'order-0001' }
    const first = await place(1, { headers })
    const again = await place(1, { headers })
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(await json(again)).toEqual(await json(first))
    await expectError(await place(2, { headers }), 422, 'idempotency_key_reused')
    // A pet's create under the same key is another body too: one key, one create.
    const pet = await call('POST', '/v1/pets', { body: { name: 'Rex', categoryId: 1 }, headers })
    await expectError(pet, 422, 'idempotency_key_reused')
    expect(await json(await call('GET', '/v1/store/orders'))).toHaveLength(1)
  })

  test('concurrent orders with one Idempotency-Key place one order and replay it to the others', async () => {
    const { call, place } = await withPets(1)
    const headers = { 'idempotency-key': 'order-race' }
    const answers = await Promise.all(Array.from({ length: 10 }, () => place(1, { headers })))
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201))
    expect(new Set(await Promise.all(answers.map((answer) => answer.text()))).size).toBe(1)
    expect(await json(await call('GET', '/v1/store/orders'))).toHaveLength(1)
  })

  test('a read-only key cannot place or end an order (403), and changes nothing', async () => {
    const { call, keys, place, petStatus } = await withPets(1)
    const { secret } = await issueKey(keys, { ...UNLIMITED, access: 'read-only' })
    await expectError(await place(1, { key: secret }), 403, 'insufficient_scope')
    expect(await petStatus(1)).toBe('available')
    await place(1)
    const end = await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' }, key: secret })
    await expectError(end, 403, 'insufficient_scope')
    expect(await petStatus(1)).toBe('pending')
  })
})

describeEachStore('updateOrder: deliver or cancel (experimental)', () => {
  test('delivered: the pet is sold; the order final; 409 invalid_transition for any other move', async () => {
    let now = Date.UTC(2026, 10, 25, 15, 0, 0)
    const { call, place, petStatus } = await withPets(1, { clock: () => now })
    await place(1)
    now += 60_000
    const delivered = await call('PATCH', '/v1/store/orders/1', { body: { status: 'delivered' }, headers: MERGE_PATCH })
    expect(delivered.status).toBe(200)
    const order = await json(delivered)
    expect(order).toMatchObject({ id: 1, petId: 1, status: 'delivered', updatedAt: '2026-11-25T15:01:00.000Z' })
    expect(order.placedAt).toBe('2026-11-25T15:00:00.000Z')
    expect(delivered.headers.get('etag')).toBe((await call('GET', '/v1/store/orders/1')).headers.get('etag'))
    expect(await petStatus(1)).toBe('sold')
    expect(await json(await call('GET', '/v1/store/inventory'))).toEqual({ available: 0, pending: 0, sold: 1 })
    const refused = await expectError(
      await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' } }),
      409,
      'invalid_transition',
    )
    expect(refused.message).toBe('"status" cannot move from delivered to cancelled: delivered is final')
    // The status it has is no move: 200, nothing written (a retried delivery is safe).
    now += 60_000
    const again = await call('PATCH', '/v1/store/orders/1', { body: { status: 'delivered' } })
    expect(await json(again)).toEqual(order)
    expect(await petStatus(1)).toBe('sold')
  })

  test('cancelled: the pet is available again, and may be ordered anew', async () => {
    const { call, place, petStatus } = await withPets(1)
    await place(1)
    const cancelled = await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' } })
    expect(await json(cancelled)).toMatchObject({ id: 1, status: 'cancelled' })
    expect(await petStatus(1)).toBe('available')
    await expectError(
      await call('PATCH', '/v1/store/orders/1', { body: { status: 'delivered' } }),
      409,
      'invalid_transition',
    )
    expect(await petStatus(1)).toBe('available')
    const second = await place(1)
    expect(await json(second)).toMatchObject({ id: 2, petId: 1, status: 'placed' })
    expect(await json(await call('GET', '/v1/store/inventory'))).toEqual({ available: 0, pending: 1, sold: 0 })
  })

  test('If-Match: changed only while the order is as that ETag says, else 412 and nothing changes', async () => {
    const { call, place, petStatus } = await withPets(1)
    await place(1)
    const etag = (await call('GET', '/v1/store/orders/1')).headers.get('etag') as string
    await expectError(
      await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' }, headers: { 'if-match': '"stale"' } }),
      412,
      'precondition_failed',
    )
    expect(await petStatus(1)).toBe('pending')
    const matched = await call('PATCH', '/v1/store/orders/1', {
      body: { status: 'delivered' },
      headers: { 'if-match': etag },
    })
    expect(matched.status).toBe(200)
    await expectError(
      await call('PATCH', '/v1/store/orders/1', { body: { status: 'delivered' }, headers: { 'if-match': etag } }),
      412,
      'precondition_failed',
    )
  })

  test.each([
    [{}, '"status"'],
    [{ status: 'placed' }, '"status" must be one of delivered, cancelled'],
    [{ status: null }, '"status"'],
    [{ status: 'delivered', petId: 2 }, '"petId" is not an accepted property'],
  ])('%p is 400 naming the field', async (body, message) => {
    const { call, place, petStatus } = await withPets(1)
    await place(1)
    const error = await expectError(await call('PATCH', '/v1/store/orders/1', { body }), 400, 'invalid_request')
    expect(error.message).toContain(message)
    expect(await petStatus(1)).toBe('pending')
  })

  test('an unknown order, or an id that is not one, is refused', async () => {
    const { call } = await withPets(1)
    const missing = await call('PATCH', '/v1/store/orders/7', { body: { status: 'delivered' } })
    expect((await expectError(missing, 404, 'not_found')).message).toBe('Order 7 does not exist')
    await expectError(
      await call('PATCH', '/v1/store/orders/x', { body: { status: 'delivered' } }),
      400,
      'invalid_request',
    )
    await expectError(await call('GET', '/v1/store/orders/0'), 400, 'invalid_request')
    await expectError(await call('GET', '/v1/store/orders/7'), 404, 'not_found')
    await expectError(await call('DELETE', '/v1/store/orders/7'), 405, 'method_not_allowed')
  })
})

describeEachStore('pets with orders', () => {
  test("while an order is placed, the pet's status moves only through it: 409 pet_has_open_order", async () => {
    const { call, place, petStatus } = await withPets(1)
    await place(1)
    for (const status of ['available', 'sold']) {
      const refused = await call('PATCH', '/v1/pets/1', { body: { status } })
      expect((await expectError(refused, 409, 'pet_has_open_order')).message).toContain('Pet 1 has a placed order')
    }
    // Its name may change, and its own status is no move.
    expect((await call('PATCH', '/v1/pets/1', { body: { name: 'Renamed', status: 'pending' } })).status).toBe(200)
    await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' } })
    expect((await call('PATCH', '/v1/pets/1', { body: { status: 'sold' } })).status).toBe(200)
    expect(await petStatus(1)).toBe('sold')
  })

  test('a pet an order names is never deleted (409 pet_has_orders), cancelled or not; one without is', async () => {
    const { call, place } = await withPets(2)
    await place(1)
    await expectError(await call('DELETE', '/v1/pets/1'), 409, 'pet_has_orders')
    await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' } })
    await expectError(await call('DELETE', '/v1/pets/1'), 409, 'pet_has_orders')
    expect(await json(await call('GET', '/v1/store/orders/1'))).toMatchObject({ petId: 1, status: 'cancelled' })
    expect((await call('DELETE', '/v1/pets/2')).status).toBe(204)
  })
})

describeEachStore('orders are private to their key line', () => {
  test('another key gets 404 and an empty list; a rolled successor sees and ends the order', async () => {
    const { call, keys, key, place } = await withPets(2)
    const { secret: stranger } = await issueKey(keys, UNLIMITED)
    await place(1)
    await expectError(await call('GET', '/v1/store/orders/1', { key: stranger }), 404, 'not_found')
    const theirs = await call('PATCH', '/v1/store/orders/1', { body: { status: 'cancelled' }, key: stranger })
    await expectError(theirs, 404, 'not_found')
    expect(await json(await call('GET', '/v1/store/orders', { key: stranger }))).toEqual([])
    expect(await json(await call('GET', '/v1/store/orders?petId=1', { key: stranger }))).toEqual([])
    // The stranger's own order is its own.
    expect((await place(2, { key: stranger })).status).toBe(201)
    expect((await json(await call('GET', '/v1/store/orders'))).map((order: { id: number }) => order.id)).toEqual([1])
    // A rolled successor is the same line.
    const successor = generateApiKey()
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
    expect(await keys.roll(key.id, hashApiKey(successor), inAnHour, null)).toBeDefined()
    expect(await json(await call('GET', '/v1/store/orders/1', { key: successor }))).toMatchObject({ id: 1 })
    expect((await json(await call('GET', '/v1/store/orders', { key: successor }))).length).toBe(1)
    const ended = await call('PATCH', '/v1/store/orders/1', { body: { status: 'delivered' }, key: successor })
    expect(ended.status).toBe(200)
    const third = await place(2, { key: successor })
    await expectError(third, 409, 'pet_not_available')
  })
})

describeEachStore('GET /v1/store/orders (experimental)', () => {
  test('pages in id order with Link rel="next", filters by status and petId, and revalidates with a 304', async () => {
    const { call, place } = await withPets(5)
    for (let id = 1; id <= 5; id++) await place(id)
    await call('PATCH', '/v1/store/orders/2', { body: { status: 'cancelled' } })
    await call('PATCH', '/v1/store/orders/4', { body: { status: 'delivered' } })
    await place(2)
    const first = await call('GET', '/v1/store/orders?limit=2')
    expect((await json(first)).map((order: { id: number }) => order.id)).toEqual([1, 2])
    expect(first.headers.get('link')).toBe('<http://localhost/v1/store/orders?limit=2&after=2>; rel="next"')
    const walked: number[] = []
    let next: string | null = '/v1/store/orders?limit=2'
    while (next) {
      const page = await call('GET', next.replace('http://localhost', ''))
      walked.push(...(await json(page)).map((order: { id: number }) => order.id))
      next = page.headers.get('link')?.match(/^<([^>]+)>/)?.[1] ?? null
    }
    expect(walked).toEqual([1, 2, 3, 4, 5, 6])
    const placed = await json(await call('GET', '/v1/store/orders?status=placed'))
    expect(placed.map((order: { id: number }) => order.id)).toEqual([1, 3, 5, 6])
    const forPet2 = await json(await call('GET', '/v1/store/orders?petId=2'))
    expect(forPet2.map((order: { id: number; status: string }) => [order.id, order.status])).toEqual([
      [2, 'cancelled'],
      [6, 'placed'],
    ])
    const both = await json(await call('GET', '/v1/store/orders?petId=2&status=placed&limit=1'))
    expect(both.map((order: { id: number }) => order.id)).toEqual([6])
    const etag = first.headers.get('etag') as string
    const revalidated = await call('GET', '/v1/store/orders?limit=2', { headers: { 'if-none-match': etag } })
    expect(revalidated.status).toBe(304)
    await call('PATCH', '/v1/store/orders/1', { body: { status: 'delivered' } })
    const changed = await call('GET', '/v1/store/orders?limit=2', { headers: { 'if-none-match': etag } })
    expect(changed.status).toBe(200)
  })

  test.each([
    ['limit=0', '"limit"'],
    ['limit=101', '"limit"'],
    ['status=lost', '"status"'],
    ['petId=0', '"petId"'],
    ['after=-1', '"after"'],
    ['sort=id', '"sort"'],
  ])('?%s is 400 naming the parameter', async (query, message) => {
    const { call } = await withPets(0)
    const error = await expectError(await call('GET', `/v1/store/orders?${query}`), 400, 'invalid_request')
    expect(error.message).toContain(message)
  })
})
