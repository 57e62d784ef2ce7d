import { expect, test } from 'bun:test'

const MB = 1024 * 1024

test('five million distinct IPv6 callers keep the process (a whole app and its limiter) under 150 MB RSS', () => {
  // bench/probes/limiter_memory.ts in its own process, so nothing else this test run holds is counted.
  const flood = Bun.spawnSync(
    [process.execPath, 'bench/probes/limiter_memory.ts', '--flood', 'ipv6', '--count', '5000000'],
    {
      cwd: `${import.meta.dir}/../..`,
      stderr: 'pipe',
    },
  )
  expect(flood.stderr.toString()).toBe('')
  const result = JSON.parse(flood.stdout.toString())
  expect(result.held.anonymous).toBeLessThanOrEqual(1_000_000)
  expect(result.held.anonymous).toBeGreaterThanOrEqual(500_000)
  expect(result.rss / MB).toBeLessThan(150)
}, 120_000)
