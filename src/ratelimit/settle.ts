import { type Awaitable, andThen } from '../awaitable'
import type { Callers } from '../http/callers'
import type { ErrorBody, ResponseSet } from '../http/errors'
import { applyRateDecision } from './apply_decision'
import { describeUsage, type RateDecision, type Usage } from './decision'
import type { RateLimiter } from './limiter'
import { keySubject } from './subject'

/**
 * Settles a request's quota once its status is known, for the two kinds of
 * answer that must not cost the caller anything (GitHub's rules): a 304, and
 * our own 500 or 503. Returns an Error body to answer instead (a 429) when a
 * request charged only now turns out to be over its limit.
 */
export type SettleQuota = (request: Request, set: ResponseSet, status: number) => Awaitable<ErrorBody | undefined>

/** What settling needs. */
export interface QuotaSettlementOptions {
  limiter: RateLimiter
  /** Which key each request authenticated with, when it was counted, and whether it was let through uncounted. */
  callers: Callers
  /** Milliseconds since the epoch. */
  clock: () => number
}

/**
 * The guard counts most requests before they run. Two cases are settled
 * here, when the status is known:
 * - A conditional GET (`If-None-Match`) is let through uncounted after a
 *   look at the quota: a 304 costs nothing; any other answer below 500 is
 *   counted now, atomically like every count, so concurrent requests never
 *   get more than the limit (and one over it answers 429 instead).
 * - A counted request that ends in our own 5xx is given back to the limiter,
 *   once; its headers then show the quota as it was before it.
 * Every 4xx keeps its cost. The headers always describe the quota as it
 * stands after settling.
 */
export function quotaSettlement({ limiter, callers, clock }: QuotaSettlementOptions): SettleQuota {
  return (request, set, status) => {
    if (status === 304) return
    const key = callers.keyOf(request)
    if (key === undefined) return
    const now = clock()
    if (status >= 500) {
      const countedAt = callers.takeCountedAt(request)
      if (countedAt === undefined) return
      const describe = (usage: Usage | undefined): undefined => {
        if (usage !== undefined) applyRateDecision(set, describeUsage(usage, key, now))
      }
      return andThen(limiter.refund(keySubject(key), key, countedAt, now), describe)
    }
    if (!callers.takeUncounted(request)) return
    const charge = (decision: RateDecision): ErrorBody | undefined => {
      const refusal = applyRateDecision(set, decision)
      if (refusal === undefined) callers.counted(request, now, decision.storeVersion)
      return refusal
    }
    return andThen(limiter.consume(keySubject(key), key, now), charge)
  }
}
