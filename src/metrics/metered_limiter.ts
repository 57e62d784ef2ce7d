import { andThen } from '../awaitable'
import type { RateDecision } from '../ratelimit/decision'
import type { RateLimiter } from '../ratelimit/limiter'

/**
 * A limiter that tells `onCounted` of every decision `consume` makes, and is
 * otherwise `limiter`: the metrics count refusals (and the Redis limiter's
 * fallback's work) through it, so the limiters know nothing of metrics and
 * a service without them pays nothing.
 */
export function meteredLimiter(limiter: RateLimiter, onCounted: (decision: RateDecision) => void): RateLimiter {
  const metered: RateLimiter = {
    answersAtOnce: limiter.answersAtOnce,
    consume: (subject, limits, now) =>
      andThen(limiter.consume(subject, limits, now), (decision) => {
        onCounted(decision)
        return decision
      }),
    peek: (subject, limits, now) => limiter.peek(subject, limits, now),
    refund: (subject, limits, countedAt, now) => limiter.refund(subject, limits, countedAt, now),
    reset: (subject, reset, now) => limiter.reset(subject, reset, now),
  }
  if (limiter.health) metered.health = () => limiter.health?.() ?? 'ok'
  if (limiter.close) metered.close = () => limiter.close?.()
  return metered
}
