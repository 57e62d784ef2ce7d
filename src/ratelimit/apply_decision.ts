import { type ErrorBody, refuse } from '../errors'
import { BAN_DURATION_TEXT, type RateDecision } from './limiter'

/** The part of Elysia's context a decision writes to. */
interface ResponseSet {
  headers: Record<string, string | number>
  status?: number | string
}

/**
 * Maps a limiter decision onto the response, the only place that does: the
 * three `X-RateLimit-*` headers always, and for a refusal `Retry-After`, the
 * status of its Error code (429, or 503 for a limiter that cannot be asked)
 * and the Error body, which it returns. Undefined means the request goes on.
 */
export function applyRateDecision(set: ResponseSet, decision: RateDecision): ErrorBody | undefined {
  const headers = set.headers
  headers['x-ratelimit-limit'] = String(decision.limit)
  headers['x-ratelimit-remaining'] = String(decision.remaining)
  headers['x-ratelimit-reset'] = String(decision.reset)
  if (decision.refusal === undefined) return undefined
  headers['retry-after'] = String(decision.retryAfter)
  return refuse(set, decision.refusal, refusalMessage(decision))
}

function refusalMessage({ refusal, window, limit, retryAfter }: RateDecision): string {
  switch (refusal) {
    case 'key_banned':
      return `Banned for ${BAN_DURATION_TEXT} for sending more than ${limit} requests within a minute after being limited; retry after ${retryAfter} s`
    case 'rate_limiter_unavailable':
      return 'The rate limiter cannot be reached; retry shortly'
    default:
      return `Rate limit of ${limit} requests per ${window} exceeded; retry after ${retryAfter} s`
  }
}
