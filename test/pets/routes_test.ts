import { describe, expect, test } from 'bun:test'
import { StoreUnavailableError } from '../../src/db/store_unavailable'
import { GET_PET_DEPRECATED, GET_PET_SUNSET } from '../../src/pets/deprecation'
import type { PetStore } from '../../src/pets/store'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { BASE, describeEachStore, expectError, FREE, IN_A_FUTURE_MINUTE, json, makeTestApp } from '../helpers'

const rex = { name: 'Rex', categoryId: 7 }

describeEachStore('POST /v1/pets', () => {
  test('returns 201, the stored pet and its Location', async () => {
    const { call } = await makeTestApp()
    const response = await call('POST', '/v1/pets', { body: { ...rex, status: 'pending' } })
    expect(response.status).toBe(201)
    const pet = await json(response)
    expect(pet).toEqual({ id: 1, name: 'Rex', categoryId: 7, status: 'pending' })
    expect(response.headers.get('location')).toBe('http://localhost/v1/pets/1')
  })

  test('answers creates asked together each with its own pet, Location, request id and count', async () => {
    const { call } = await makeTestApp()
    const ids = Array.from({ length: 20 }, (_, i) => `create-${i}`)
    const answers = await Promise.all(
      ids.map((id, i) =>
        call('POST', '/v1/pets', { body: { ...rex, name: `Rex ${i}` }, headers: { 'x-request-id': id } }),
      ),
    )
    expect(answers.map((response) => response.status)).toEqual(ids.map(() => 201))
    expect(answers.map((response) => response.headers.get('x-request-id'))).toEqual(ids)
    const pets = (await Promise.all(answers.map((response) => json(response)))) as { id: number; name: string }[]
    expect(pets.map((pet) => pet.name)).toEqual(ids.map((_, i) => `Rex ${i}`))
    expect(answers.map((response) => response.headers.get('location'))).toEqual(
      pets.map((pet) => `http://localhost/v1/pets/${pet.id}`),
    )
    expect(new Set(answers.map((response) => response.headers.get('x-ratelimit-used'))).size).toBe(ids.length)
    for (const response of answers) {
      expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8')
      expect(response.headers.get('ratelimit')).toContain(`;r=${response.headers.get('x-ratelimit-remaining')};`)
    }
  })

  test('defaults status to available', async () => {
    const { call } = await makeTestApp()
    expect((await json(await call('POST', '/v1/pets', { body: rex }))).status).toBe('available')
  })

  test('builds Location on PUBLIC_URL when it is set', async () => {
    const { call } = await makeTestApp({ publicUrl: 'https://pets.example/api' })
    const response = await call('POST', '/v1/pets', { body: rex })
    expect(response.headers.get('location')).toBe('https://pets.example/api/v1/pets/1')
  })

  test.each([
    ['a lone high surrogate', '"\\ud800"'],
    ['a lone low surrogate after text', '"Rex\\udc00"'],
  ])('refuses a name with %s, which SQLite would silently alter', async (_, literal) => {
    const { call, pets } = await makeTestApp()
    const response = await call('POST', '/v1/pets', {
      body: `{"name":${literal},"categoryId":1}`,
      headers: { 'content-type': 'application/json' },
    })
    const error = await expectError(response, 400, 'invalid_request')
    expect(error.message).toBe('"name" must be well-formed Unicode: it contains a lone surrogate')
    expect((await pets.list({ limit: 10 })).pets).toEqual([])
  })

  test('keeps control characters and a surrogate pair exactly', async () => {
    const { call } = await makeTestApp()
    const name = 'a\u0001b\u001f🐶\uffff'
    const created = await json(await call('POST', '/v1/pets', { body: { name, categoryId: 1 } }))
    expect(created.name).toBe(name)
    expect((await json(await call('GET', `/v1/pets/${created.id}`))).name).toBe(name)
  })

  test('refuses U+0000 in a name with 400 (PostgreSQL cannot store it; no store does)', async () => {
    const { call, pets } = await makeTestApp()
    const error = await expectError(
      await call('POST', '/v1/pets', { body: { name: 'a\u0000b', categoryId: 1 } }),
      400,
      'invalid_request',
    )
    expect(error.message).toBe('"name" must not contain U+0000 (NUL)')
    expect((await pets.list({ limit: 1 })).pets).toEqual([])
  })

  test('returns what a following GET returns', async () => {
    const { call } = await makeTestApp()
    const created = await json(
      await call('POST', '/v1/pets', { body: { name: ' Ünïcødé 🐶 ', categoryId: 9007199254740991 } }),
    )
    expect(await json(await call('GET', `/v1/pets/${created.id}`))).toEqual(created)
  })

  describe('name', () => {
    test.each([
      ['empty', ''],
      ['only spaces', '   '],
      ['only white space of several kinds', ' \t\n '],
      ['256 characters', 'x'.repeat(256)],
      ['a number', 5],
      ['null', null],
    ])('is refused with 400 when %s', async (_, name) => {
      const { call } = await makeTestApp()
      const error = await expectError(
        await call('POST', '/v1/pets', { body: { name, categoryId: 1 } }),
        400,
        'invalid_request',
      )
      expect(error.message).toContain('"name"')
    })

    test.each([
      ['1 character', 'x'],
      ['255 characters', 'x'.repeat(255)],
      ['surrounded by spaces', '  Rex  '],
    ])('is accepted when %s', async (_, name) => {
      const { call } = await makeTestApp()
      const response = await call('POST', '/v1/pets', { body: { name, categoryId: 1 } })
      expect(response.status).toBe(201)
      expect((await json(response)).name).toBe(name)
    })

    test('is required', async () => {
      const { call } = await makeTestApp()
      const error = await expectError(
        await call('POST', '/v1/pets', { body: { categoryId: 1 } }),
        400,
        'invalid_request',
      )
      expect(error.message).toBe('"name" is required')
    })

    test.each(['-74606261991112580', '1e400', '0.1'])(
      'refuses the number %s, exact or not, rather than storing it as text',
      async (literal) => {
        const { call } = await makeTestApp()
        const response = await call('POST', '/v1/pets', {
          body: `{"name":${literal},"categoryId":1}`,
          headers: { 'content-type': 'application/json' },
        })
        const error = await expectError(response, 400, 'invalid_request')
        expect(error.message).toContain('"name" must be a string')
      },
    )
  })

  describe('categoryId', () => {
    test.each([
      ['a string', '"1"'],
      ['a fraction', '1.5'],
      ['zero', '0'],
      ['negative', '-1'],
      ['negative zero', '-0'],
      ['2^53, which is beyond exact', '9007199254740992'],
      ['2^53 + 1, which JSON would round to 2^53', '9007199254740993'],
      ['2^63 - 1', '9223372036854775807'],
      ['a fraction that rounds to a valid integer', '9007199254740990.6'],
      ['a tiny fraction above 1', '1.0000000000000001'],
      ['1e-400, which rounds to zero', '1e-400'],
      ['null', 'null'],
    ])('is refused with 400 when %s', async (_, literal) => {
      const { call, pets } = await makeTestApp()
      const response = await call('POST', '/v1/pets', {
        body: `{"name":"Rex","categoryId":${literal}}`,
        headers: { 'content-type': 'application/json' },
      })
      const error = await expectError(response, 400, 'invalid_request')
      expect(error.message).toBe('"categoryId" must be an integer from 1 to 9007199254740991')
      expect((await pets.list({ limit: 100 })).pets).toEqual([])
    })

    test.each([
      ['1', 1],
      ['2^53 - 1', 9007199254740991],
      ['1.0', 1],
      ['1e3', 1000],
      ['12.5e1', 125],
    ])('is accepted exactly when %s', async (literal, expected) => {
      const { call } = await makeTestApp()
      const source = literal === '2^53 - 1' ? '9007199254740991' : literal
      const response = await call('POST', '/v1/pets', {
        body: `{"name":"Rex","categoryId":${source}}`,
        headers: { 'content-type': 'application/json' },
      })
      expect(response.status).toBe(201)
      expect((await json(response)).categoryId).toBe(expected)
    })

    test('is required', async () => {
      const { call } = await makeTestApp()
      const error = await expectError(await call('POST', '/v1/pets', { body: { name: 'Rex' } }), 400, 'invalid_request')
      expect(error.message).toBe('"categoryId" is required')
    })
  })

  test('refuses a status outside the enum', async () => {
    const { call } = await makeTestApp()
    const error = await expectError(
      await call('POST', '/v1/pets', { body: { ...rex, status: 'lost' } }),
      400,
      'invalid_request',
    )
    expect(error.message).toBe('"status" must be one of available, pending, sold')
  })

  test.each([
    ['id', 5],
    ['tag', 'dog'],
    ['__proto__', {}],
    ['toString', 0],
    ['valueOf', 'x'],
  ])('refuses the unknown property %s with 400 naming it', async (property, value) => {
    const { call } = await makeTestApp()
    const body = `{"name":"Rex","categoryId":1,${JSON.stringify(property)}:${JSON.stringify(value)}}`
    const error = await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    )
    expect(error.message).toBe(`"${property}" is not an accepted property`)
  })

  test('refuses a nested key that shadows Object.prototype with 400 naming it', async () => {
    const { call } = await makeTestApp()
    const response = await call('POST', '/v1/pets', {
      body: '{"name":{"toString":0},"categoryId":1}',
      headers: { 'content-type': 'application/json' },
    })
    const error = await expectError(response, 400, 'invalid_request')
    expect(error.message).toBe('"toString" is not an accepted property')
  })

  test.each([
    ['an array', '[]'],
    ['null', 'null'],
    ['a string', '"Rex"'],
    ['a number', '5'],
  ])('refuses a body that is %s with 400', async (_, body) => {
    const { call } = await makeTestApp()
    const error = await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    )
    expect(error.message).toBe('Request body must be a JSON object')
  })

  test.each([
    ['truncated', '{"name":"Rex",'],
    ['single-quoted', "{'name':'Rex'}"],
    ['trailing garbage', '{"name":"Rex","categoryId":1} x'],
  ])('refuses malformed JSON (%s) with 400', async (_, body) => {
    const { call } = await makeTestApp()
    const error = await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    )
    expect(error.message).toBe('Request body is not valid JSON')
  })

  test('refuses a body that is not UTF-8 with 400', async () => {
    const { app, secret } = await makeTestApp()
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"name":"'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('","categoryId":1}'),
    ])
    const response = await app.handle(
      new Request('http://localhost/v1/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: bytes,
      }),
    )
    await expectError(response, 400, 'invalid_request')
  })

  test('refuses an empty body with 400', async () => {
    const { call } = await makeTestApp()
    const error = await expectError(
      await call('POST', '/v1/pets', { headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    )
    expect(error.message).toContain('required')
  })

  test.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['a JSON suffix type', 'application/merge-patch+json'],
  ])('refuses %s with 415', async (_, contentType) => {
    const { call, pets } = await makeTestApp()
    const body = contentType.includes('form') ? 'name=Rex&categoryId=1' : JSON.stringify(rex)
    await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': contentType } }),
      415,
      'unsupported_media_type',
    )
    expect((await pets.list({ limit: 100 })).pets).toEqual([])
  })

  test('refuses a body without Content-Type with 415', async () => {
    const { app, secret } = await makeTestApp()
    const request = new Request('http://localhost/v1/pets', {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      body: new Blob([JSON.stringify(rex)]),
    })
    await expectError(await app.handle(request), 415, 'unsupported_media_type')
  })

  test('accepts application/json with a charset, in any case', async () => {
    const { call } = await makeTestApp()
    expect(
      (
        await call('POST', '/v1/pets', {
          body: JSON.stringify(rex),
          headers: { 'content-type': 'Application/JSON; charset=utf-8' },
        })
      ).status,
    ).toBe(201)
  })

  test('refuses a 17 KiB body with 413', async () => {
    const { call } = await makeTestApp()
    const body = JSON.stringify({ ...rex, name: 'x'.repeat(17 * 1024) })
    await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } }),
      413,
      'payload_too_large',
    )
  })

  test('accepts a body of exactly 16 KiB and judges it on its content', async () => {
    const { call } = await makeTestApp()
    const filler = 16 * 1024 - JSON.stringify({ ...rex, name: '' }).length
    const body = JSON.stringify({ ...rex, name: 'x'.repeat(filler) })
    expect(new TextEncoder().encode(body).length).toBe(16 * 1024)
    const error = await expectError(
      await call('POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    )
    expect(error.message).toContain('"name"')
  })

  test('refuses a streamed 17 KiB body without Content-Length with 413', async () => {
    const { app, secret } = await makeTestApp()
    const chunk = new TextEncoder().encode('x'.repeat(1024))
    let sent = 0
    const body = new ReadableStream({
      pull(controller) {
        if (sent++ < 17) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const request = new Request('http://localhost/v1/pets', {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body,
    })
    expect(request.headers.get('content-length')).toBeNull()
    await expectError(await app.handle(request), 413, 'payload_too_large')
  })
})

describeEachStore('GET /v1/pets', () => {
  async function seeded(count: number, statusOf: (i: number) => string = () => 'available') {
    const made = await makeTestApp()
    for (let i = 1; i <= count; i++)
      await made.call('POST', '/v1/pets', { body: { name: `pet ${i}`, categoryId: i, status: statusOf(i) } })
    return made
  }

  test('returns at most 20 pets by default, in id order', async () => {
    const { call } = await seeded(25)
    const pets = await json(await call('GET', '/v1/pets'))
    expect(pets.map((p: { id: number }) => p.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
  })

  test.each([
    ['1', 1],
    ['100', 25],
    ['020', 20],
  ])('honours limit=%s', async (limit, expected) => {
    const { call } = await seeded(25)
    expect((await json(await call('GET', `/v1/pets?limit=${limit}`))).length).toBe(expected)
  })

  test.each(['0', '101', 'abc', '1.5', '', '-1', '0x10', '1e1', '+5', ' 5', '99999999999999999999'])(
    'returns 400 when limit is "%s"',
    async (limit) => {
      const { call } = await seeded(1)
      const error = await expectError(
        await call('GET', `/v1/pets?limit=${encodeURIComponent(limit)}`),
        400,
        'invalid_request',
      )
      expect(error.message).toBe('"limit" must be an integer from 1 to 100')
    },
  )

  test('filters by status', async () => {
    const statuses = ['available', 'pending', 'sold']
    const { call } = await seeded(30, (i) => statuses[i % 3]!)
    for (const status of statuses) {
      const pets = await json(await call('GET', `/v1/pets?status=${status}&limit=100`))
      expect(pets.length).toBe(10)
      expect(pets.every((p: { status: string }) => p.status === status)).toBe(true)
    }
  })

  test('does not filter when status is absent', async () => {
    const statuses = ['available', 'pending', 'sold']
    const { call } = await seeded(6, (i) => statuses[i % 3]!)
    expect((await json(await call('GET', '/v1/pets'))).length).toBe(6)
  })

  test.each(['lost', '', 'AVAILABLE'])('returns 400 when status is "%s"', async (status) => {
    const { call } = await seeded(1)
    const error = await expectError(await call('GET', `/v1/pets?status=${status}`), 400, 'invalid_request')
    expect(error.message).toBe('"status" must be one of available, pending, sold')
  })

  test.each(['-1', 'abc', '1.5'])('returns 400 when after is "%s"', async (after) => {
    const { call } = await seeded(1)
    const error = await expectError(await call('GET', `/v1/pets?after=${after}`), 400, 'invalid_request')
    expect(error.message).toContain('"after"')
  })

  test('returns an empty array and no Link past the last pet', async () => {
    const { call } = await seeded(3)
    const response = await call('GET', '/v1/pets?after=3')
    expect(await json(response)).toEqual([])
    expect(response.headers.get('link')).toBeNull()
  })

  test('sends Link rel="next" only when more pets remain', async () => {
    const { call } = await seeded(4)
    const first = await call('GET', '/v1/pets?limit=2')
    expect(first.headers.get('link')).toBe('<http://localhost/v1/pets?limit=2&after=2>; rel="next"')
    const exact = await call('GET', '/v1/pets?limit=2&after=2')
    expect(exact.headers.get('link')).toBeNull()
    expect((await json(exact)).map((p: { id: number }) => p.id)).toEqual([3, 4])
  })

  test('tags the same rows apart once a next page follows them, so their old ETag is not a 304', async () => {
    const { call } = await seeded(2)
    const last = await call('GET', '/v1/pets?limit=2')
    const etag = last.headers.get('etag') as string
    const rows = await json(last)
    expect(last.headers.get('link')).toBeNull()
    await call('POST', '/v1/pets', { body: { name: 'pet 3', categoryId: 3 } })
    const followed = await call('GET', '/v1/pets?limit=2', { headers: { 'if-none-match': etag } })
    expect(followed.status).toBe(200)
    expect(followed.headers.get('link')).toBe('<http://localhost/v1/pets?limit=2&after=2>; rel="next"')
    expect(followed.headers.get('etag')).not.toBe(etag)
    expect(await json(followed)).toEqual(rows)
    const again = await call('GET', '/v1/pets?limit=2', {
      headers: { 'if-none-match': followed.headers.get('etag') as string },
    })
    expect(again.status).toBe(304)
  })

  test('answers page after page with the headers of each: its request id and counts, no header of the one before', async () => {
    const { call } = await seeded(4)
    const answers = []
    for (const path of ['/v1/pets?limit=2', '/v1/pets?limit=2', '/v1/pets?limit=2&after=2', '/v1/pets?limit=2'])
      answers.push(await call('GET', path))
    const used = answers.map((response) => Number(response.headers.get('x-ratelimit-used')))
    expect(used).toEqual([0, 1, 2, 3].map((i) => (used[0] as number) + i))
    expect(answers.map((response) => response.headers.get('ratelimit')?.split(';')[1])).toEqual(
      answers.map((response) => `r=${response.headers.get('x-ratelimit-remaining')}`),
    )
    expect(new Set(answers.map((response) => response.headers.get('x-request-id'))).size).toBe(4)
    expect(answers.map((response) => response.headers.has('link'))).toEqual([true, true, false, true])
    expect(answers[2]?.headers.get('etag')).not.toBe(answers[1]?.headers.get('etag'))
    expect(answers[3]?.headers.get('etag')).toBe(answers[0]?.headers.get('etag'))
  })

  test('answers lists asked together each with its own request id and count', async () => {
    const { call } = await seeded(4)
    const ids = Array.from({ length: 20 }, (_, i) => `together-${i}`)
    const answers = await Promise.all(
      ids.map((id) => call('GET', '/v1/pets?limit=2', { headers: { 'x-request-id': id } })),
    )
    expect(answers.map((response) => response.status)).toEqual(ids.map(() => 200))
    expect(answers.map((response) => response.headers.get('x-request-id'))).toEqual(ids)
    expect(new Set(answers.map((response) => response.headers.get('x-ratelimit-used'))).size).toBe(ids.length)
    for (const response of answers)
      expect(response.headers.get('ratelimit')).toContain(`;r=${response.headers.get('x-ratelimit-remaining')};`)
  })

  test('keeps the status filter in the next link and builds it on PUBLIC_URL', async () => {
    const { call } = await makeTestApp({ publicUrl: 'https://pets.example' })
    for (let i = 0; i < 3; i++) await call('POST', '/v1/pets', { body: { ...rex, status: 'sold' } })
    const response = await call('GET', '/v1/pets?status=sold&limit=2')
    expect(response.headers.get('link')).toBe('<https://pets.example/v1/pets?limit=2&status=sold&after=2>; rel="next"')
  })

  test.each([
    [undefined, 7],
    ['pending', 3],
  ])('paging with status %s visits every pet exactly once by following rel="next"', async (status, pageSize) => {
    const statuses = ['available', 'pending', 'sold']
    const { call } = await seeded(50, (i) => statuses[i % 3]!)
    const seen: number[] = []
    let next: string | undefined = `/v1/pets?limit=${pageSize}${status ? `&status=${status}` : ''}`
    while (next) {
      const response = await call('GET', next)
      expect(response.status).toBe(200)
      const page = await json(response)
      expect(page.length).toBeLessThanOrEqual(pageSize)
      seen.push(...page.map((p: { id: number }) => p.id))
      const target = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1]
      next = target === undefined ? undefined : target.slice('http://localhost'.length)
    }
    const expected = Array.from({ length: 50 }, (_, i) => i + 1).filter((i) => !status || statuses[i % 3] === status)
    expect(seen).toEqual(expected)
  })
})

describeEachStore('GET /v1/pets/{petId}', () => {
  function expectDeprecation(response: Response) {
    expect(response.headers.get('deprecation')).toBe(GET_PET_DEPRECATED)
    expect(GET_PET_DEPRECATED).toBe(`@${Date.UTC(2026, 10, 21) / 1000}`)
    expect(response.headers.get('sunset')).toBe(GET_PET_SUNSET)
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
    expect(response.headers.get('link')).toBe(
      '<http://localhost/v1/pets>; rel="successor-version", ' +
        '<http://localhost/docs#/pets/getPet>; rel="deprecation"; type="text/html"',
    )
  }

  test('returns the pet with the deprecation headers', async () => {
    const { call } = await makeTestApp()
    await call('POST', '/v1/pets', { body: rex })
    const response = await call('GET', '/v1/pets/1')
    expect(response.status).toBe(200)
    expect(await json(response)).toEqual({ id: 1, ...rex, status: 'available' })
    expectDeprecation(response)
  })

  test('returns 404 for an unknown id, with the deprecation headers', async () => {
    const { call } = await makeTestApp()
    const response = await call('GET', '/v1/pets/42')
    expectDeprecation(response)
    await expectError(response, 404, 'not_found')
  })

  test.each(['abc', '1.5', '0', '-1', '0x1', '1e1', '9007199254740992', '99999999999999999999'])(
    'returns 400 for the id "%s", with the deprecation headers',
    async (id) => {
      const { call } = await makeTestApp()
      const response = await call('GET', `/v1/pets/${id}`)
      expectDeprecation(response)
      const error = await expectError(response, 400, 'invalid_request')
      expect(error.message).toBe('"petId" must be an integer from 1 to 9007199254740991')
    },
  )

  test('answers a 401 with the deprecation headers too', async () => {
    const { call } = await makeTestApp()
    const response = await call('GET', '/v1/pets/1', { key: null })
    expectDeprecation(response)
    await expectError(response, 401, 'unauthorized')
  })

  test('answers a 429 with the deprecation headers too', async () => {
    const { call } = await makeTestApp({ clock: () => IN_A_FUTURE_MINUTE }, FREE)
    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets')
    const response = await call('GET', '/v1/pets/1/')
    expectDeprecation(response)
    await expectError(response, 429, 'rate_limit_exceeded')
  })

  test.each([
    ['503 when the database does not answer', new StoreUnavailableError('down'), 503, 'unavailable'],
    ['500 when something unexpected fails', new Error('a bug'), 500, 'internal_error'],
  ])('answers a %s with the deprecation headers too', async (_, failure, status, code) => {
    const failing = () => Promise.reject(failure)
    const pets: PetStore = {
      list: failing,
      create: failing,
      get: failing,
      update: failing,
      delete: failing,
      inventory: failing,
      answers: () => true,
    }
    const { call } = await makeTestApp({ pets })
    const response = await call('GET', '/v1/pets/1')
    expectDeprecation(response)
    await expectError(response, status, code)
  })

  test('builds the links on PUBLIC_URL when it is set', async () => {
    const { call } = await makeTestApp({ publicUrl: 'https://pets.example/api' })
    expect((await call('GET', '/v1/pets/1')).headers.get('link')).toBe(
      '<https://pets.example/api/v1/pets>; rel="successor-version", ' +
        '<https://pets.example/api/docs#/pets/getPet>; rel="deprecation"; type="text/html"',
    )
  })

  test.each([
    ['the list', 'GET', '/v1/pets'],
    ['a deeper path', 'GET', '/v1/pets/1/owner'],
    ['a create', 'POST', '/v1/pets'],
  ])('leaves %s without them', async (_, method, path) => {
    const { call } = await makeTestApp()
    const response = await call(method, path, method === 'POST' ? { body: rex } : {})
    expect(response.headers.get('deprecation')).toBeNull()
    expect(response.headers.get('sunset')).toBeNull()
  })
})

describe('GET /v1/pets as Elysia compiles it', () => {
  // A promised answer costs Bun far more than a Response (bench/README.md, "Where the gap to raw Bun goes").
  test('with SQLite and the in-memory limiter a page and a refusal are answered at once, without a promise', async () => {
    const { app, secret, call } = await makeTestApp({ limiter: new MemoryRateLimiter() })
    await call('POST', '/v1/pets', { body: rex })
    const page = app.fetch(new Request(`${BASE}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } }))
    expect(page).toBeInstanceOf(Response)
    expect((page as Response).status).toBe(200)
    expect(await (page as Response).json()).toEqual([{ id: 1, ...rex, status: 'available' }])
    const refused = app.fetch(new Request(`${BASE}/v1/pets`))
    expect(refused).toBeInstanceOf(Response)
    expect((refused as Response).status).toBe(401)
  })
})
