import { expect, test } from 'bun:test'
import { describeEachStore, makeTestApp } from '../helpers'
import { driveOrdersAgainstModel } from './order_model'

describeEachStore('orders against a model', () => {
  test.each([1, 2, 3])(
    'seed %p: 300 random pet and order operations, each answer as the model says, the invariants after every step',
    async (seed) => {
      const { call } = await makeTestApp()
      const report = await driveOrdersAgainstModel(
        (method, path, headers, body) => call(method, path, { headers, body }),
        { seed, steps: 300 },
      )
      expect(report.invariantChecks).toBe(300)
      expect(report.counts.place).toBeGreaterThan(40)
      expect(report.counts['update pet']).toBeGreaterThan(20)
      expect(report.counts['delete pet']).toBeGreaterThan(5)
      expect(report.counts.deliver).toBeGreaterThan(20)
      expect(report.counts.cancel).toBeGreaterThan(20)
    },
    60_000,
  )
})
