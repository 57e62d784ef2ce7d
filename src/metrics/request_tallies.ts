import type { Metric, MetricObjectWithValues, MetricValue } from 'prom-client'
import { OPERATIONS, type Operation } from './operation'

/** Latency buckets in seconds: from a page answered from memory up to a create that waits for its group commit. */
export const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
]

interface OperationTally {
  byStatus: Map<number, number>
  /** Requests per latency bucket (not cumulative); the last slot is above every bound. */
  buckets: Float64Array
  sum: number
  count: number
}

/**
 * What every answered request adds to the metrics, kept as plain numbers:
 * a prom-client Counter or Histogram validates and hashes its labels on
 * every call, while this is a few map and array steps (bench/README.md,
 * "Issue 14 on the hot list"). prom-client's registry reads them when scraped, through
 * two metrics that produce what its own Counter and Histogram would
 * (`requestsMetric`, `latencyMetric`), and writes the exposition.
 */
export class RequestTallies {
  #tallies = new Map<Operation, OperationTally>(
    OPERATIONS.map((operation) => [
      operation,
      { byStatus: new Map(), buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 },
    ]),
  )

  /** Adds one answered request. */
  record(operation: Operation, status: number, seconds: number): void {
    const tally = this.#tallies.get(operation) as OperationTally
    tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1)
    let bucket = 0
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++
    tally.buckets[bucket] = (tally.buckets[bucket] as number) + 1
    tally.sum += seconds
    tally.count++
  }

  /** The requests counter, by operation and status, for prom-client's registry. */
  requestsMetric(name: string, help: string): Metric {
    return this.#metric(name, help, 'counter', () => {
      const values: MetricValue<string>[] = []
      for (const [operation, { byStatus }] of this.#tallies)
        for (const [status, value] of byStatus) values.push({ labels: { operation, status }, value })
      return values
    })
  }

  /** The latency histogram, by operation, for prom-client's registry: cumulative buckets, `+Inf`, sum and count. */
  latencyMetric(name: string, help: string): Metric {
    return this.#metric(name, help, 'histogram', () => {
      const values: (MetricValue<string> & { metricName: string })[] = []
      for (const [operation, { buckets, sum, count }] of this.#tallies) {
        let cumulative = 0
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += buckets[i] as number
          values.push({ metricName: `${name}_bucket`, labels: { le, operation }, value: cumulative })
        })
        values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', operation }, value: count })
        values.push({ metricName: `${name}_sum`, labels: { operation }, value: sum })
        values.push({ metricName: `${name}_count`, labels: { operation }, value: count })
      }
      return values
    })
  }

  #metric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue<string>[]): Metric {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async (): Promise<MetricObjectWithValues<MetricValue<string>>> =>
        ({ name, help, type, aggregator: 'sum', values: values() }) as unknown as MetricObjectWithValues<
          MetricValue<string>
        >,
      reset: () => {
        for (const tally of this.#tallies.values()) {
          tally.byStatus.clear()
          tally.buckets.fill(0)
          tally.sum = 0
          tally.count = 0
        }
      },
    }
    return metric as unknown as Metric
  }
}
