import { describe, expect, test } from 'bun:test'
import { multipleWithRange } from '../../bench/lib/rounds'
import { type ContenderResult, referenceMultiple, type SideBySideResult } from '../../bench/lib/side_by_side'

/** A contender with only the figures a reference multiple reads. */
const contender = (server: string, cpuMicrosByRound: number[], cpuMicrosPerRequest: number): ContenderResult =>
  ({ server, kind: 'floor', cpuMicrosByRound, cpuMicrosPerRequest }) as ContenderResult

describe('the service against its reference, round by round', () => {
  // Three rounds whose own multiples are 1.5, 1.2 and 2: the range is theirs, in no round's order; the multiple is
  // the two servers' figures over all rounds (not a mean of the rounds' multiples).
  const result: SideBySideResult = {
    scenario: 'cold list',
    what: '',
    contenders: [contender('service', [30, 24, 40], 31), contender('reference', [20, 20, 20], 20)],
  }

  test('gives the whole-run multiple, the lowest and highest round, and the target', () => {
    expect(referenceMultiple(result, 'service', 'reference', 1.15)).toEqual({
      server: 'reference',
      multiple: 31 / 20,
      range: [24 / 20, 40 / 20],
      target: 1.15,
    })
  })

  test('prints as the multiple and its range', () => {
    const { multiple, range } = referenceMultiple(result, 'service', 'reference')
    expect(multipleWithRange(multiple, range)).toBe('1.55× [1.20–2.00]')
  })
})
