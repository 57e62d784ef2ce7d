import { describe, expect, test } from 'bun:test'
import type { ResponseSet } from '../../src/http/errors'
import { ReusedHeaders } from '../../src/http/reused_headers'

/** A page answer's headers as the wrap, the guard and the route write them; `id` and `used` change per answer. */
function written(id: string, used: number, more: ResponseSet['headers'] = {}): ResponseSet['headers'] {
  return {
    'x-content-type-options': 'nosniff',
    'x-request-id': id,
    'x-ratelimit-limit': 5000,
    'x-ratelimit-remaining': 5000 - used,
    'x-ratelimit-used': used,
    ratelimit: `"minute";r=${5000 - used};t=30`,
    etag: '"abc"',
    'cache-control': 'private, no-cache',
    'content-type': 'application/json;charset=utf-8',
    ...more,
  }
}

/** What a Response made from these headers carries, in order: what Bun would send. */
function sent(headers: Headers | ResponseSet['headers']): [string, string][] {
  return [...new Response('x', { headers: headers as Record<string, string> }).headers]
}

describe('ReusedHeaders', () => {
  test('answers exactly with the headers written, answer after answer, and leaves set.headers empty', async () => {
    const reused = new ReusedHeaders()
    const answers = [
      written('a', 1),
      written('b', 2),
      written('c', 3, { link: '<https://x/v1/pets?after=20>; rel="next"' }),
      written('d', 4, { link: '<https://x/v1/pets?after=40>; rel="next"' }),
      written('e', 5),
      written('f', 6, { 'content-encoding': 'gzip' }),
      written('g', 7, { 'cache-control': 'no-store' }),
      written('h', 8),
      // The same names, one value changed and then changed back.
      written('i', 9, { 'cache-control': 'no-store' }),
      written('j', 10),
    ]
    for (const headers of answers) {
      const set: ResponseSet = { headers: { ...headers } }
      const response = reused.respond(`body ${headers['x-request-id']}`, set)
      expect({ status: response.status, headers: [...response.headers], body: await response.text() }).toEqual({
        status: 200,
        headers: sent(headers),
        body: `body ${headers['x-request-id']}`,
      })
      expect(set.headers).toEqual({})
    }
  })

  test('answers made one after another each keep their own values, though the Headers are reused', () => {
    const reused = new ReusedHeaders()
    const made = [1, 2, 3].map((used) => reused.respond('[]', { headers: written(`id${used}`, used) }))
    made.forEach((response, i) => {
      expect(response.headers.get('x-request-id')).toBe(`id${i + 1}`)
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(5000 - (i + 1)))
    })
  })

  test('another name in place of one (the same count) starts again: no header of the last answer is left over', () => {
    const reused = new ReusedHeaders()
    reused.respond('[]', { headers: written('a', 1, { link: '<https://x/v1/pets?after=20>; rel="next"' }) })
    const response = reused.respond('[]', { headers: written('b', 2, { 'content-encoding': 'gzip' }) })
    expect(response.headers.has('link')).toBe(false)
    expect(response.headers.get('content-encoding')).toBe('gzip')
  })

  test("answers with the status in set (a create's 201), and leaves set as Elysia's defaults, so it is not made again", () => {
    const reused = new ReusedHeaders()
    for (const id of ['a', 'b']) {
      const set: ResponseSet = { headers: written(id, 1, { location: `https://x/v1/pets/${id}` }), status: 201 }
      const response = reused.respond('{}', set)
      expect(response.status).toBe(201)
      expect(response.headers.get('location')).toBe(`https://x/v1/pets/${id}`)
      expect(set).toEqual({ headers: {}, status: 200 })
    }
    expect(reused.respond('{}', { headers: written('c', 2) }).status).toBe(200)
  })

  test('a status named by text is refused: an answer made here has a number', () => {
    expect(() => new ReusedHeaders().respond('{}', { headers: {}, status: 'Created' })).toThrow(TypeError)
  })
})
