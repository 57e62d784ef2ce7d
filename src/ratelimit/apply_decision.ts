import { type ErrorBody, type ResponseSet, refuse } from '../http/errors'
import type { Limits } from '../keys/plans'
import { DAY_MS, MINUTE_MS } from '../time'
import type { RateDecision } from './decision'
import { BAN_DURATION_TEXT } from './windows'

/**
 * Maps a limiter decision onto the response, the only place that does: the
 * rate-limit headers always, and for a refusal `Retry-After`, the status of
 * its Error code (429, or 503 for a limiter that cannot be asked) and the
 * Error body, which it returns. Undefined means the request goes on.
 *
 * The headers: GitHub's `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Used`
 * and `-Resource` (`minute` or `day`: the window they describe), and the
 * IETF fields of draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy`
 * lists both windows, `RateLimit` describes the same window as the X- ones
 * (`r` remaining, `t` seconds until it ends; never later than `Retry-After`).
 */
export function applyRateDecision(set: ResponseSet, decision: RateDecision): ErrorBody | undefined {
  const headers = set.headers
  const resource = decision.window === 'day' ? 'day' : 'minute'
  headers['x-ratelimit-limit'] = String(decision.limit)
  headers['x-ratelimit-remaining'] = String(decision.remaining)
  headers['x-ratelimit-reset'] = String(decision.reset)
  headers['x-ratelimit-used'] = String(decision.used)
  headers['x-ratelimit-resource'] = resource
  headers['ratelimit-policy'] = policyOf(decision.limits)
  headers.ratelimit = `"${resource}";r=${decision.remaining};t=${decision.resetAfter}`
  if (decision.refusal === undefined) return undefined
  headers['retry-after'] = String(decision.retryAfter)
  return refuse(set, decision.refusal, refusalMessage(decision))
}

// A key's limits object lives as long as the key map holds it, so its policy text is built once.
const policies = new WeakMap<Limits, string>()

/** `RateLimit-Policy` for these limits: `"minute";q=60;w=60, "day";q=1000;w=86400`. */
export function policyOf(limits: Limits): string {
  let policy = policies.get(limits)
  if (policy === undefined) {
    policy = `"minute";q=${limits.rpm};w=${MINUTE_MS / 1000}, "day";q=${limits.rpd};w=${DAY_MS / 1000}`
    policies.set(limits, policy)
  }
  return policy
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
