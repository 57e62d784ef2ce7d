import type { Awaitable } from '../awaitable'
import type { Callers } from '../http/callers'
import { applyRateDecision, type ResponseSet } from './apply_decision'
import { describeUsage, type Usage } from './decision'
import type { RateLimiter } from './limiter'
import { keySubject } from './subject'

/** Gives back the quota a request spent, and rewrites its rate-limit headers to say so. */
export type RefundQuota = (request: Request, set: ResponseSet) => Awaitable<void>

/** What a refund needs. */
export interface QuotaRefundOptions {
  limiter: RateLimiter
  /** Which key each request authenticated with and when it was counted (the guard notes both). */
  callers: Callers
  /** Milliseconds since the epoch. */
  clock: () => number
}

/**
 * The refund for answers that must not cost the caller anything (GitHub's
 * rule for a 304; our own 500 or 503): the request is given back to the
 * limiter that counted it, once, and the headers then describe the quota
 * as it is after the refund, so `X-RateLimit-Remaining` is what it was
 * before the request. A request the guard did not count (a refusal, the
 * quota check) is left alone; every 4xx keeps its cost.
 */
export function quotaRefund({ limiter, callers, clock }: QuotaRefundOptions): RefundQuota {
  return (request, set) => {
    const key = callers.keyOf(request)
    const countedAt = callers.takeCountedAt(request)
    if (key === undefined || countedAt === undefined) return
    const now = clock()
    const describe = (usage: Usage | undefined): void => {
      if (usage !== undefined) applyRateDecision(set, describeUsage(usage, key, now))
    }
    const usage = limiter.refund(keySubject(key.id), key, countedAt, now)
    return usage instanceof Promise ? usage.then(describe) : describe(usage)
  }
}
