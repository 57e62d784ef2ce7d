import { describe, expect, test } from 'bun:test'
import { pageOf, rowsForPage } from '../../src/pets/paging'
import type { Pet } from '../../src/pets/schema'

const pets = (count: number): Pet[] =>
  Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `p${i + 1}`, categoryId: 1, status: 'available' }))

describe('paging', () => {
  test('reads one row beyond the page', () => {
    expect(rowsForPage(20)).toBe(21)
  })

  test('a full read is the page and says more follow', () => {
    const page = pageOf(pets(rowsForPage(3)), 3)
    expect(page.pets.map((p) => p.id)).toEqual([1, 2, 3])
    expect(page.more).toBe(true)
  })

  test.each([0, 2, 3])('a read of %i rows for a page of 3 is the whole page, with nothing after', (count) => {
    const page = pageOf(pets(count), 3)
    expect(page.pets).toHaveLength(count)
    expect(page.more).toBe(false)
  })
})
