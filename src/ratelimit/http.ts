import { type ErrorBody, errorBody } from '../errors'
import type { RateDecision } from './limiter'

/** The part of Elysia's context a decision writes to. */
interface ResponseSet {
  headers: Record<string, string | number>
  status?: number | string
}

/**
 * Maps a limiter decision onto the response: the three `X-RateLimit-*`
 * headers always, and for a refusal `Retry-After` plus the 429 Error body,
 * which it returns. Undefined means the request goes on.
 */
export function applyRateDecision(set: ResponseSet, decision: RateDecision): ErrorBody | undefined {
  const headers = set.headers
  headers['x-ratelimit-limit'] = String(decision.limit)
  headers['x-ratelimit-remaining'] = String(decision.remaining)
  headers['x-ratelimit-reset'] = String(decision.reset)
  if (decision.refusal === undefined) return undefined
  headers['retry-after'] = String(decision.retryAfter)
  set.status = 429
  return errorBody(429, decision.refusal, refusalMessage(decision))
}

function refusalMessage({ refusal, window, limit, retryAfter }: RateDecision): string {
  if (refusal === 'key_banned') {
    return `Banned for 15 minutes for sending more than ${limit} requests within a minute after being limited; retry after ${retryAfter} s`
  }
  return `Rate limit of ${limit} requests per ${window} exceeded; retry after ${retryAfter} s`
}
