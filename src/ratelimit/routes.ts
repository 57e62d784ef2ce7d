import { Elysia } from 'elysia'
import type { Callers } from '../http/callers'
import { API_PREFIX } from '../http/url'
import { jsonResponse, operationResponses, ref } from '../openapi/responses'
import { applyRateDecision } from './apply_decision'
import { describeUsage, limiterUnavailable, quotaStatus } from './decision'
import type { RateLimiter } from './limiter'
import { RATE_LIMIT_STATUS_EXAMPLE } from './schema'
import { keySubject } from './subject'

/** The quota check: the guard lets a GET of it through without counting it. */
export const RATE_LIMIT_PATH = `${API_PREFIX}/rate_limit`

/** What the quota check needs. */
export interface RateLimitRoutesOptions {
  limiter: RateLimiter
  /** Which key each request authenticated with (the guard has checked it). */
  callers: Callers
  /** Milliseconds since the epoch. */
  clock: () => number
}

/**
 * `GET /v1/rate_limit` (GitHub's `GET /rate_limit`): the caller's plan, both
 * windows and any ban, read without counting, so a client can check its
 * quota for free, also while it is over its limit or banned. It carries the
 * rate-limit headers like every `/v1` answer, from the same reading.
 */
export function rateLimitRoutes({ limiter, callers, clock }: RateLimitRoutesOptions) {
  return new Elysia({ name: 'rate-limit', prefix: API_PREFIX }).get(
    '/rate_limit',
    async ({ request, set }) => {
      const key = callers.keyOf(request)
      if (key === undefined) throw new Error('the guard let an unauthenticated quota check through')
      const now = clock()
      const usage = await limiter.peek(keySubject(key), key, now)
      if (usage === undefined) return applyRateDecision(set, limiterUnavailable(key, now))
      applyRateDecision(set, describeUsage(usage, key, now))
      return { plan: key.plan, ...quotaStatus(usage, key, now) }
    },
    {
      detail: {
        operationId: 'getRateLimit',
        summary: "Check the key's quota, free",
        description:
          'Both windows of the calling key (used, remaining, reset) and the end of any ban. It counts nothing and ' +
          'answers 200 also while the key is over its limit or banned, so a client can see when to come back.',
        tags: ['rate limits'],
        responses: operationResponses({
          200: jsonResponse("The key's quota", ref('schemas', 'RateLimitStatus'), {}, RATE_LIMIT_STATUS_EXAMPLE),
        }),
      },
    },
  )
}
