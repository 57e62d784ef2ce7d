import { describe, expect, test } from 'bun:test'
import { pageKey } from '../../src/pets/page_key'
import { MAX_LIMIT, type PetStatus } from '../../src/pets/schema'
import type { PetListQuery } from '../../src/pets/store'

const STATUSES: (PetStatus | undefined)[] = [undefined, 'available', 'pending', 'sold']

describe('pageKey', () => {
  test('every limit, status and after near the ends of the range has a key of its own', () => {
    const largestNumeric = Math.floor((Number.MAX_SAFE_INTEGER - 403) / 404)
    const afters = [0, 1, 2, 99_999, 2 ** 31, 2 ** 40, largestNumeric - 1, largestNumeric, largestNumeric + 1]
    afters.push(Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER)
    const seen = new Map<number | string, PetListQuery>()
    for (const after of afters)
      for (let limit = 1; limit <= MAX_LIMIT; limit++)
        for (const status of STATUSES) {
          const query = { limit, status, after }
          const key = pageKey(query)
          expect([query, seen.get(key)]).toEqual([query, undefined])
          seen.set(key, query)
        }
    expect(seen.size).toBe(afters.length * MAX_LIMIT * STATUSES.length)
  })

  test('a number up to the largest after that keeps it exact, text past it', () => {
    const largestNumeric = Math.floor((Number.MAX_SAFE_INTEGER - 403) / 404)
    const highest = pageKey({ limit: MAX_LIMIT, status: 'sold', after: largestNumeric })
    expect(highest).toBeNumber()
    expect(Number.isSafeInteger(highest)).toBe(true)
    expect(pageKey({ limit: 1, after: largestNumeric + 1 })).toBeString()
  })

  test('a first page is the same page without after and with after 0, and sits below every later page', () => {
    for (const status of STATUSES) {
      expect(pageKey({ limit: 20, status })).toBe(pageKey({ limit: 20, status, after: 0 }))
      expect(pageKey({ limit: MAX_LIMIT, status, after: 0 }) as number).toBeLessThan(
        pageKey({ limit: 1, after: 1 }) as number,
      )
    }
  })
})
