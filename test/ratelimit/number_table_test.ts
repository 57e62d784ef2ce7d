import { describe, expect, test } from 'bun:test'
import { NumberTable } from '../../src/ratelimit/number_table'
import { random } from '../pets/pet_model'

describe('NumberTable', () => {
  test('gets, replaces and deletes, growing past its first slots', () => {
    const table = new NumberTable(2)
    for (let i = 1; i <= 1000; i++) table.set(-i, i)
    table.set(-5, 50)
    expect(table.size).toBe(1000)
    expect(table.get(-5)).toBe(50)
    expect(table.get(-1000)).toBe(1000)
    expect(table.get(-1001)).toBeUndefined()
    expect(table.has(-1)).toBe(true)
    expect(table.delete(-1)).toBe(true)
    expect(table.delete(-1)).toBe(false)
    expect(table.has(-1)).toBe(false)
    expect(table.size).toBe(999)
  })

  test('keeps every key findable through deletions among colliding keys (the same as a Map)', () => {
    // Few slots and many neighbouring keys: long probe runs, wrapping past the end, for the shifts to cross.
    // The operations replay from the seed; where the table places keys (its own random hash seed) varies by run.
    const draw = random(7)
    const table = new NumberTable()
    const model = new Map<number, number>()
    for (let step = 0; step < 200_000; step++) {
      const key = -1 - draw.below(300) * (step % 2 === 0 ? 1 : 2 ** 32)
      if (draw.chance(0.45)) expect(table.delete(key)).toBe(model.delete(key))
      else {
        table.set(key, step)
        model.set(key, step)
      }
    }
    expect(table.size).toBe(model.size)
    for (const [key, value] of model) expect(table.get(key)).toBe(value)
    expect(new Map(table.entries())).toEqual(model)
  })

  test('a copy does not see later changes, nor the table the copy’s', () => {
    const table = new NumberTable()
    for (let i = 1; i <= 100; i++) table.set(-i, i)
    const copy = table.copy()
    for (let i = 1; i <= 50; i++) table.delete(-i)
    table.set(-500, 500)
    copy.set(-600, 600)
    expect(copy.size).toBe(101)
    expect(copy.get(-1)).toBe(1)
    expect(copy.get(-500)).toBeUndefined()
    expect(table.get(-600)).toBeUndefined()
    expect([...copy.entries()].length).toBe(101)
  })

  test('refuses the key 0, which marks a free slot', () => {
    expect(() => new NumberTable().set(0, 1)).toThrow(RangeError)
  })
})
