import { expect, test } from 'bun:test'
import { issueKey } from '../../src/keys/issue'
import { describeEachStore, expectError, json, makeTestApp, UNLIMITED } from '../helpers'

const rex = { name: 'Rex', categoryId: 1 }
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' }

/** A fresh app with one pet (Rex, id 1), and its ETag as getPet gives it. */
async function withRex() {
  const made = await makeTestApp()
  expect((await made.call('POST', '/v1/pets', { body: rex })).status).toBe(201)
  const etag = (await made.call('GET', '/v1/pets/1')).headers.get('etag') as string
  return { ...made, etag }
}

describeEachStore('PATCH /v1/pets/{petId} (experimental)', () => {
  test('changes the named fields, answers the pet with the ETag getPet gives it, and every read sees it', async () => {
    const { call } = await withRex()
    const changed = await call('PATCH', '/v1/pets/1', {
      body: { name: 'Max', status: 'pending' },
      headers: MERGE_PATCH,
    })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('content-type')).toBe('application/json;charset=utf-8')
    expect(changed.headers.get('x-ratelimit-limit')).not.toBeNull()
    const pet = { id: 1, name: 'Max', categoryId: 1, status: 'pending' }
    expect(await json(changed)).toEqual(pet)
    const got = await call('GET', '/v1/pets/1')
    expect(await json(got)).toEqual(pet)
    expect(got.headers.get('etag')).toBe(changed.headers.get('etag'))
    expect(await json(await call('GET', '/v1/pets'))).toEqual([pet])
    expect(await json(await call('GET', '/v1/pets?status=available'))).toEqual([])
    expect(await json(await call('GET', '/v1/pets?status=pending'))).toEqual([pet])
  })

  test('takes application/json as a merge patch too; {} changes nothing and answers the pet', async () => {
    const { call, etag } = await withRex()
    const same = await call('PATCH', '/v1/pets/1', { body: {} })
    expect(same.status).toBe(200)
    expect(await json(same)).toEqual({ id: 1, ...rex, status: 'available' })
    expect(same.headers.get('etag')).toBe(etag)
    expect(await json(await call('PATCH', '/v1/pets/1', { body: { categoryId: 7 } }))).toMatchObject({ categoryId: 7 })
  })

  test.each([
    [{ name: null }, '"name"'],
    [{ categoryId: null }, '"categoryId"'],
    [{ status: null }, '"status"'],
    [{ id: 2 }, '"id" is not an accepted property'],
    [{ colour: 'red' }, '"colour" is not an accepted property'],
    [{ name: '   ' }, '"name"'],
    [{ status: 'lost' }, '"status" must be one of available, pending, sold'],
    [{ categoryId: 0 }, '"categoryId" must be an integer from 1'],
  ])('%p is 400 naming the field, and changes nothing', async (body, message) => {
    const { call } = await withRex()
    const error = await expectError(await call('PATCH', '/v1/pets/1', { body }), 400, 'invalid_request')
    expect(error.message).toContain(message)
    expect(await json(await call('GET', '/v1/pets/1'))).toEqual({ id: 1, ...rex, status: 'available' })
  })

  test('refuses a body that is not a JSON object (400) or not JSON (415), and an unknown query parameter', async () => {
    const { call } = await withRex()
    await expectError(await call('PATCH', '/v1/pets/1', { body: '[]', headers: MERGE_PATCH }), 400, 'invalid_request')
    await expectError(await call('PATCH', '/v1/pets/1', { body: '', headers: MERGE_PATCH }), 400, 'invalid_request')
    const text = await call('PATCH', '/v1/pets/1', { body: '{}', headers: { 'content-type': 'text/plain' } })
    expect((await expectError(text, 415, 'unsupported_media_type')).message).toBe(
      'Content-Type must be application/merge-patch+json or application/json',
    )
    const query = await expectError(await call('PATCH', '/v1/pets/1?force=1', { body: {} }), 400, 'invalid_request')
    expect(query.message).toContain('"force"')
  })

  test('moves a status only as the contract says: 409 invalid_transition naming both, nothing changed', async () => {
    const { call } = await withRex()
    expect((await call('PATCH', '/v1/pets/1', { body: { status: 'sold' } })).status).toBe(200)
    const refused = await expectError(
      await call('PATCH', '/v1/pets/1', { body: { status: 'available', name: 'Back' } }),
      409,
      'invalid_transition',
    )
    expect(refused.message).toBe('"status" cannot move from sold to available: sold is final')
    expect(await json(await call('GET', '/v1/pets/1'))).toEqual({ id: 1, ...rex, status: 'sold' })
    // The status it has is no move.
    expect((await call('PATCH', '/v1/pets/1', { body: { status: 'sold' } })).status).toBe(200)
  })

  test('with If-Match: the current ETag (or *) changes it; a stale, weak or malformed one is 412', async () => {
    const { call, etag } = await withRex()
    const first = await call('PATCH', '/v1/pets/1', { body: { status: 'pending' }, headers: { 'if-match': etag } })
    expect(first.status).toBe(200)
    for (const stale of [etag, `W/${first.headers.get('etag')}`, 'not-a-tag', `"x", ${etag}`]) {
      const refused = await call('PATCH', '/v1/pets/1', { body: { status: 'sold' }, headers: { 'if-match': stale } })
      expect((await expectError(refused, 412, 'precondition_failed')).message).toContain('nothing was changed')
    }
    expect((await json(await call('GET', '/v1/pets/1'))).status).toBe('pending')
    const now = first.headers.get('etag') as string
    expect(
      (await call('PATCH', '/v1/pets/1', { body: { name: 'A' }, headers: { 'if-match': `"x", ${now}` } })).status,
    ).toBe(200)
    expect((await call('PATCH', '/v1/pets/1', { body: { name: 'B' }, headers: { 'if-match': '*' } })).status).toBe(200)
  })

  test('404 for a pet that does not exist, 400 for an id that is not one', async () => {
    const { call } = await withRex()
    await expectError(await call('PATCH', '/v1/pets/2', { body: {} }), 404, 'not_found')
    await expectError(await call('PATCH', '/v1/pets/abc', { body: {} }), 400, 'invalid_request')
  })
})

describeEachStore('DELETE /v1/pets/{petId} (experimental)', () => {
  test('answers 204 without a body, with the rate-limit headers; the pet is then gone from every read', async () => {
    const { call } = await withRex()
    expect((await call('POST', '/v1/pets', { body: { name: 'Tom', categoryId: 2 } })).status).toBe(201)
    const deleted = await call('DELETE', '/v1/pets/1')
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe('')
    expect(deleted.headers.get('x-ratelimit-remaining')).not.toBeNull()
    await expectError(await call('GET', '/v1/pets/1'), 404, 'not_found')
    expect((await json(await call('GET', '/v1/pets'))).map((p: { name: string }) => p.name)).toEqual(['Tom'])
    await expectError(await call('DELETE', '/v1/pets/1'), 404, 'not_found')
    expect(await json(await call('GET', '/v1/store/inventory'))).toEqual({ available: 1, pending: 0, sold: 0 })
  })

  test('with If-Match: a stale ETag is 412 and the pet stays', async () => {
    const { call, etag } = await withRex()
    await call('PATCH', '/v1/pets/1', { body: { name: 'Renamed' } })
    await expectError(await call('DELETE', '/v1/pets/1', { headers: { 'if-match': etag } }), 412, 'precondition_failed')
    expect((await call('GET', '/v1/pets/1')).status).toBe(200)
    const current = (await call('GET', '/v1/pets/1')).headers.get('etag') as string
    expect((await call('DELETE', '/v1/pets/1', { headers: { 'if-match': current } })).status).toBe(204)
  })
})

describeEachStore('writes with a read-only key', () => {
  test('PATCH and DELETE are 403 insufficient_scope, and change nothing', async () => {
    const { call, keys } = await withRex()
    const { secret: readOnly } = await issueKey(keys, { ...UNLIMITED, access: 'read-only' })
    for (const [method, body] of [
      ['PATCH', { status: 'sold' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await call(method, '/v1/pets/1', { key: readOnly, body })
      await expectError(refused, 403, 'insufficient_scope')
      expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope')
    }
    expect(await json(await call('GET', '/v1/pets/1', { key: readOnly }))).toEqual({
      id: 1,
      ...rex,
      status: 'available',
    })
  })
})

describeEachStore('GET /v1/store/inventory (experimental)', () => {
  test('counts every status exactly, with an ETag: a 304 while unchanged, the new counts after a change', async () => {
    const { call } = await withRex()
    await call('POST', '/v1/pets', { body: { name: 'Tom', categoryId: 2, status: 'sold' } })
    const first = await call('GET', '/v1/store/inventory')
    expect(first.status).toBe(200)
    expect(await json(first)).toEqual({ available: 1, pending: 0, sold: 1 })
    const etag = first.headers.get('etag') as string
    expect(first.headers.get('cache-control')).toBe('private, no-cache')
    const unchanged = await call('GET', '/v1/store/inventory', { headers: { 'if-none-match': etag } })
    expect(unchanged.status).toBe(304)
    // A 304 is free: the quota is as the 200 left it.
    expect(unchanged.headers.get('x-ratelimit-used')).toBe(first.headers.get('x-ratelimit-used'))
    await call('PATCH', '/v1/pets/1', { body: { status: 'pending' } })
    const changed = await call('GET', '/v1/store/inventory', { headers: { 'if-none-match': etag } })
    expect(changed.status).toBe(200)
    expect(await json(changed)).toEqual({ available: 0, pending: 1, sold: 1 })
    await expectError(await call('GET', '/v1/store/inventory?status=sold'), 400, 'invalid_request')
  })
})

describeEachStore('a stale If-None-Match after a change', () => {
  test('gets 200 with the new body, for the list, a filtered list and getPet', async () => {
    const { call } = await withRex()
    const paths = ['/v1/pets', '/v1/pets?status=available', '/v1/pets/1']
    const tags = new Map<string, string>()
    for (const path of paths) {
      const first = await call('GET', path)
      tags.set(path, first.headers.get('etag') as string)
      expect((await call('GET', path, { headers: { 'if-none-match': tags.get(path)! } })).status).toBe(304)
    }
    await call('PATCH', '/v1/pets/1', { body: { name: 'Max' } })
    for (const path of paths) {
      const after = await call('GET', path, { headers: { 'if-none-match': tags.get(path)! } })
      expect({ path, status: after.status }).toEqual({ path, status: 200 })
      expect(JSON.stringify(await json(after))).toContain('Max')
    }
  })
})
