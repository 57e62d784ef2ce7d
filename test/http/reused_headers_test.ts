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

/** Both ways answers are made: each at once, or several after all their headers were written (a wait). */
const MODES: [string, boolean][] = [
  ['made at once', true],
  ['made after a wait', false],
]

describe('ReusedHeaders', () => {
  test.each(MODES)('gives exactly the headers written, answer after answer (answers %s)', (_, atOnce) => {
    const reused = new ReusedHeaders(atOnce)
    const answers = [
      written('a', 1),
      written('b', 2),
      written('c', 3, { link: '<https://x/v1/pets?after=20>; rel="next"' }),
      written('d', 4, { link: '<https://x/v1/pets?after=40>; rel="next"' }),
      written('e', 5),
      written('f', 6, { 'content-encoding': 'gzip' }),
      written('g', 7, { 'cache-control': 'no-store' }),
      written('h', 8),
    ]
    for (const headers of answers) expect(sent(reused.of(headers))).toEqual(sent(headers))
  })

  test('hands the same Headers out again, only the changed values set, when answers are made at once', () => {
    const reused = new ReusedHeaders(true)
    const first = reused.of(written('a', 1))
    const second = reused.of(written('b', 2))
    expect(second).toBe(first)
    expect(second.get('x-request-id')).toBe('b')
    expect(second.get('x-ratelimit-used')).toBe('2')
  })

  test('answers made after all their headers were written (a wait) each keep their own values', () => {
    const reused = new ReusedHeaders(false)
    const made = [1, 2, 3].map((used) => reused.of(written(`id${used}`, used)))
    made.forEach((headers, i) => {
      expect(headers.get('x-request-id')).toBe(`id${i + 1}`)
      expect(headers.get('x-ratelimit-remaining')).toBe(String(5000 - (i + 1)))
    })
    expect(new Set(made).size).toBe(3)
  })

  test('another name in place of one (the same count) starts again: no header of the last answer is left over', () => {
    const reused = new ReusedHeaders(true)
    reused.of(written('a', 1, { link: '<https://x/v1/pets?after=20>; rel="next"' }))
    const headers = reused.of(written('b', 2, { 'content-encoding': 'gzip' }))
    expect(headers.has('link')).toBe(false)
    expect(headers.get('content-encoding')).toBe('gzip')
  })
})
