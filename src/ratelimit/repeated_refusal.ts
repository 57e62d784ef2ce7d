import type { ErrorBody, ResponseSet } from '../http/errors'
import { JSON_CONTENT_TYPE } from '../http/media_types'
import { handedOnAsIs } from '../http/reused_headers'
import { applyRateDecision } from './apply_decision'
import type { RateDecision } from './decision'

/** The last refusal answered: its decision, the headers it was answered with, and the body. */
interface Answered {
  decision: RateDecision
  /** The headers written before the decision (the wrap's), as `headers` holds them, and how many. */
  before: Record<string, string>
  beforeCount: number
  /** Every header of the answer, the decision's, those written before it and its type, made into Headers once. */
  headers: Headers
  status: number
  /** The Error body as JSON, as Elysia would send it. */
  json: string
}

/**
 * Applies the guard's rate decisions, and answers a refusal that repeats
 * the last one (the same subject refused again within the same second: a
 * client hammering after its 429) with a Response made at once from the
 * Headers and the body text kept from the last one. Bun makes a Response's
 * headers from a plain object at about 0.1 µs a header, and a refusal has
 * eleven: a Response of twelve took 1.5 µs from an object and 0.5 from
 * made Headers (bench/README.md, "A refusal that repeats"); and Elysia
 * would turn the Error body into text again for every answer. The answer
 * is exact: the decision must be the same in every field, and the headers
 * written before it the same names, of which the values that changed (the
 * request id) are set again.
 *
 * The Response is made in `apply`, its headers copied into it, before the
 * next decision is applied, so the kept Headers serve every answer, whether
 * the limiter answers at once or after a wait (Redis); `set` is left as
 * Elysia's defaults, so it hands that Response on as it is.
 */
export class RepeatedRefusal {
  #last: Answered | undefined

  /**
   * As applyRateDecision: the rate-limit headers on `set`, and for a
   * refusal its status and Error body, or for a refusal that repeats the
   * last one its Response.
   */
  apply(set: ResponseSet, decision: RateDecision): ErrorBody | Response | undefined {
    if (decision.refusal === undefined) return applyRateDecision(set, decision)
    const last = this.#last
    if (last !== undefined && sameDecision(last.decision, decision) && sameNames(last, set.headers)) {
      const headers = this.#headersFor(last, set.headers)
      return handedOnAsIs(new Response(last.json, { status: last.status, headers }), set)
    }
    const before: Record<string, string> = {}
    let beforeCount = 0
    for (const name in set.headers) {
      before[name] = String(set.headers[name])
      beforeCount++
    }
    const body = applyRateDecision(set, decision) as ErrorBody
    const headers = new Headers(set.headers as Record<string, string>)
    headers.set('content-type', JSON_CONTENT_TYPE)
    this.#last = { decision, before, beforeCount, headers, status: body.status, json: JSON.stringify(body) }
    return body
  }

  /** The last answer's Headers, with the values in `written` that changed. */
  #headersFor(last: Answered, written: ResponseSet['headers']): Headers {
    for (const name in written) {
      const value = String(written[name])
      if (last.before[name] === value) continue
      last.headers.set(name, value)
      last.before[name] = value
    }
    return last.headers
  }
}

/** Whether `written` has the names the last answer had before its decision, and no other. */
function sameNames(last: Answered, written: ResponseSet['headers']): boolean {
  let count = 0
  for (const name in written) {
    if (last.before[name] === undefined) return false
    count++
  }
  return count === last.beforeCount
}

function sameDecision(a: RateDecision, b: RateDecision): boolean {
  return (
    a.refusal === b.refusal &&
    a.window === b.window &&
    a.limit === b.limit &&
    a.used === b.used &&
    a.remaining === b.remaining &&
    a.reset === b.reset &&
    a.resetAfter === b.resetAfter &&
    a.retryAfter === b.retryAfter &&
    a.limits === b.limits
  )
}
