import { describe, expect, test } from 'bun:test'
import { RecentSubjects } from '../../src/ratelimit/recent_subjects'

describe('RecentSubjects', () => {
  test('holds at most max subjects, forgetting the least recently used', () => {
    const recent = new RecentSubjects(4, () => false)
    for (let i = 1; i <= 4; i++) recent.set(-i, i)
    recent.get(-1) // a read alone does not move it
    recent.set(-1, 10) // a write does
    for (let i = 5; i <= 6; i++) recent.set(-i, i)
    expect(recent.size).toBeLessThanOrEqual(4)
    expect(recent.get(-1)).toBe(10)
    expect(recent.get(-2)).toBeUndefined()
    expect(recent.get(-6)).toBe(6)
  })

  test('never holds more than max whatever the number of subjects', () => {
    const recent = new RecentSubjects(1000, () => false)
    for (let i = 1; i <= 100_000; i++) {
      recent.set(-i, i)
      if (recent.size > 1000) throw new Error(`size ${recent.size} at ${i}`)
    }
  })

  test('carries the entries it must keep through any flood', () => {
    const recent = new RecentSubjects(10, (value) => value === 999)
    recent.set(-1, 999)
    for (let i = 2; i < 10_000; i++) recent.set(-i, i)
    expect(recent.get(-1)).toBe(999)
    expect([...recent.entries()].length).toBe(recent.size)
  })

  test('gives every subject held once while subjects move between generations', () => {
    // One shard of two generations of 20,000: 10,000 subjects in the recent one, 20,000 in the older.
    const recent = new RecentSubjects(40_000, () => false)
    for (let i = 1; i <= 30_000; i++) recent.set(-i, i)
    const held = new Set<number>()
    let read = 0
    for (const [subject] of recent.entries()) {
      held.add(subject as number)
      read++
      // Each step writes a subject again (it moves to the recent generation), and one the table never held.
      recent.set(-1 - ((read * 7919) % 30_000), read)
      recent.set(-100_000 - read, read)
    }
    expect(read).toBe(held.size)
    for (let i = 1; i <= 30_000; i++) expect(held.has(-i)).toBe(true)
  })
})
