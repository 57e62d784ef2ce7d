// The statistics of interleaved rounds, for every bench script: a noisy
// machine shifts every case of a round alike, so each figure is the median
// over the rounds, with their min–max.

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** The lowest and the highest of `xs`. */
export const lowestAndHighest = (xs: readonly number[]): [number, number] => [Math.min(...xs), Math.max(...xs)]

/** A multiple with the lowest and highest of its rounds: `1.38× [1.28–1.53]`. */
export const multipleWithRange = (multiple: number, [lowest, highest]: readonly [number, number]): string =>
  `${multiple.toFixed(2)}× [${lowest.toFixed(2)}–${highest.toFixed(2)}]`

/** `median [min–max]` with `digits` decimals. */
export const spread = (xs: readonly number[], digits = 2): string => {
  const [lowest, highest] = lowestAndHighest(xs)
  return `${median(xs).toFixed(digits)} [${lowest.toFixed(digits)}–${highest.toFixed(digits)}]`
}

/**
 * Runs every case `iterations` times per round (once unmeasured first, to
 * warm up), the cases interleaved round by round, and gives each case's µs
 * per call, one figure per round. A case that returns a promise is awaited.
 */
export async function timeInProcess(
  cases: Record<string, () => unknown>,
  { rounds, iterations }: { rounds: number; iterations: number },
): Promise<Record<string, number[]>> {
  const time = async (run: () => unknown): Promise<number> => {
    const start = Bun.nanoseconds()
    for (let i = 0; i < iterations; i++) {
      const result = run()
      if (result instanceof Promise) await result
    }
    return (Bun.nanoseconds() - start) / iterations / 1000
  }
  for (const run of Object.values(cases)) await time(run)
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]))
  for (let round = 0; round < rounds; round++)
    for (const [name, run] of Object.entries(cases)) samples[name]!.push(await time(run))
  return samples
}
