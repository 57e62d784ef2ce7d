import type { Usage } from './decision'

/** One reading of a key's quota: what it had used, and when (epoch ms). */
export interface QuotaReading {
  usage: Usage
  at: number
}

/**
 * The reading the guard took for each quota check in flight (`GET
 * /v1/rate_limit`), so the rate-limit headers (written by the guard, before
 * anything can refuse the request) and the route's answer come from the same
 * one. Held weakly, like Callers: an answered request leaves nothing.
 */
export class QuotaReadings {
  #readings = new WeakMap<Request, QuotaReading>()

  note(request: Request, reading: QuotaReading): void {
    this.#readings.set(request, reading)
  }

  of(request: Request): QuotaReading | undefined {
    return this.#readings.get(request)
  }
}
