import type { Limits } from '../keys/plans'
import type { RateDecision } from './decision'
import type { Subject } from './limiter'
import { MemoryRateLimiter } from './memory_limiter'

/**
 * How many requests that cost no quota (quota checks, conditional GETs,
 * which a 304 answers for free) a key's line may send: ten times its plan
 * per minute and per day, and never fewer than 600 a minute, 100,000 a day.
 * Generous for any client that revalidates what it shows; a bound on one
 * that would make the service work for nothing.
 */
export function freeRequestLimits(plan: Limits): Limits {
  return { rpm: Math.max(600, plan.rpm * 10), rpd: Math.max(100_000, plan.rpd * 10) }
}

/**
 * The secondary count of the requests a key's quota does not count, kept in
 * this process (per instance, with several): fixed windows and the ban of
 * MemoryRateLimiter, keyed like the quota (one line for a key and its rolled
 * successors), and outside `/v1` per address (health probes aside), where
 * nothing is counted against a quota. Under `/v1` a caller without a key is
 * counted by the quota itself on every request.
 */
export class FreeRequests {
  #limiter = new MemoryRateLimiter()

  /** Counts one such request; a refusal (its Retry-After) when the line is over the secondary limit. */
  count(subject: Subject, plan: Limits, now: number): RateDecision | undefined {
    const decision = this.#limiter.consume(subject, freeRequestLimits(plan), now)
    return decision.refusal === undefined ? undefined : decision
  }
}
