import { Elysia } from 'elysia'
import type { Callers } from '../http/callers'
import { NoQuery } from '../http/no_query'
import { API_PREFIX } from '../http/url'
import { jsonResponse, operationResponses, ref, response } from '../openapi/responses'
import { quotaStatus } from './decision'
import type { QuotaReadings } from './quota_readings'
import { RATE_LIMIT_STATUS_EXAMPLE } from './schema'

/** The quota check: the guard lets a GET of it through without counting it. */
export const RATE_LIMIT_PATH = `${API_PREFIX}/rate_limit`

/** What the quota check needs. */
export interface RateLimitRoutesOptions {
  /** Which key each request authenticated with (the guard has checked it). */
  callers: Callers
  /** The quota the guard read for each quota check, and wrote the rate-limit headers from. */
  readings: QuotaReadings
}

/**
 * `GET /v1/rate_limit` (GitHub's `GET /rate_limit`): the caller's plan, both
 * windows and any ban, read without counting, so a client can check its
 * quota for free, also while it is over its limit or banned. The guard reads
 * the quota and writes the rate-limit headers (auth/guard.ts), so an answer
 * refused before the route (a 431) carries them too; the route answers from
 * that reading.
 */
export function rateLimitRoutes({ callers, readings }: RateLimitRoutesOptions) {
  return new Elysia({ name: 'rate-limit', prefix: API_PREFIX }).get(
    '/rate_limit',
    ({ request }) => {
      const key = callers.keyOf(request)
      const reading = readings.of(request)
      if (key === undefined || reading === undefined) throw new Error('the guard let a quota check through unread')
      return { plan: key.plan, ...quotaStatus(reading.usage, key, reading.at) }
    },
    {
      query: NoQuery,
      detail: {
        operationId: 'getRateLimit',
        summary: "Check the key's quota, free",
        description:
          'Both windows of the calling key (used, remaining, reset) and the end of any ban. It counts nothing and ' +
          'answers 200 also while the key is over its limit or banned, so a client can see when to come back.',
        tags: ['rate limits'],
        responses: operationResponses({
          200: jsonResponse("The key's quota", ref('schemas', 'RateLimitStatus'), {}, RATE_LIMIT_STATUS_EXAMPLE),
          400: response('InvalidRequest'),
        }),
      },
    },
  )
}
