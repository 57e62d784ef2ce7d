import { describe, expect, test } from 'bun:test'
import { limitsFor, PLAN_LIMITS } from '../../src/keys/plans'

describe('limitsFor', () => {
  test('gives each fixed plan its published quota', () => {
    expect(PLAN_LIMITS).toEqual({
      free: { rpm: 60, rpd: 1000 },
      pro: { rpm: 300, rpd: 10_000 },
      business: { rpm: 1000, rpd: 100_000 },
    })
    expect(limitsFor('pro', {})).toEqual({ rpm: 300, rpd: 10_000 })
  })

  test('gives enterprise the custom quota', () => {
    expect(limitsFor('enterprise', { rpm: 5000, rpd: 2_000_000 })).toEqual({ rpm: 5000, rpd: 2_000_000 })
  })

  test('requires both custom limits for enterprise', () => {
    expect(() => limitsFor('enterprise', { rpm: 5 })).toThrow('needs both --rpm and --rpd')
    expect(() => limitsFor('enterprise', {})).toThrow()
  })

  test('refuses custom limits on a fixed plan', () => {
    expect(() => limitsFor('free', { rpm: 5, rpd: 10 })).toThrow('only for the enterprise plan')
  })
})
