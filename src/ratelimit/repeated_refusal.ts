import type { ErrorBody, ResponseSet } from '../http/errors'
import { applyRateDecision } from './apply_decision'
import type { RateDecision } from './decision'

/** The last refusal answered: its decision, the headers it was answered with, and the body. */
interface Answered {
  decision: RateDecision
  /** The headers written before the decision (the wrap's), as `headers` holds them, and how many. */
  before: Record<string, string>
  beforeCount: number
  /** Every header of the answer, the decision's and those written before it, made into Headers once. */
  headers: Headers
  body: ErrorBody
}

/**
 * Applies the guard's rate decisions, and answers a refusal that repeats
 * the last one (the same subject refused again within the same second: a
 * client hammering after its 429) with the Headers made for the last one.
 * Bun makes a Response's headers from a plain object at about 0.1 µs a
 * header, and a refusal has eleven: a Response of twelve took 1.5 µs from an
 * object and 0.5 from made Headers (bench/README.md, "A refusal that
 * repeats"). The answer is exact: the decision must be the same in every
 * field, and the headers written before it the same names, of which the
 * values that changed (the request id) are set again.
 *
 * With a limiter that answers at once, each answer is made (and its
 * Headers copied into it) before the next decision is applied, so the kept
 * Headers are handed out themselves; with one that waits (Redis), several
 * answers may be made after all their decisions were applied, so each gets
 * a copy. What it hands Elysia in `set.headers` is Headers, not an object:
 * nothing may write to `set.headers` after a refusal, which is so (the
 * guard returns it, and the wrap's headers are written before).
 */
export class RepeatedRefusal {
  #last: Answered | undefined

  /** `answersAtOnce`: whether the limiter's decisions come without a promise (`RateLimiter.answersAtOnce`). */
  constructor(private readonly answersAtOnce: boolean) {}

  /** As applyRateDecision: the rate-limit headers on `set`, and for a refusal its status and Error body. */
  apply(set: ResponseSet, decision: RateDecision): ErrorBody | undefined {
    if (decision.refusal === undefined) return applyRateDecision(set, decision)
    const last = this.#last
    if (last !== undefined && sameDecision(last.decision, decision) && sameNames(last, set.headers)) {
      set.headers = this.#headersFor(last, set.headers) as unknown as ResponseSet['headers']
      set.status = last.body.status
      return last.body
    }
    const before: Record<string, string> = {}
    let beforeCount = 0
    for (const name in set.headers) {
      before[name] = String(set.headers[name])
      beforeCount++
    }
    const body = applyRateDecision(set, decision) as ErrorBody
    this.#last = { decision, before, beforeCount, headers: new Headers(set.headers as Record<string, string>), body }
    return body
  }

  /** The last answer's Headers (a copy unless answers are made at once) with the values in `written` that changed. */
  #headersFor(last: Answered, written: ResponseSet['headers']): Headers {
    const shared = this.answersAtOnce
    const headers = shared ? last.headers : new Headers(last.headers)
    for (const name in written) {
      const value = String(written[name])
      if (last.before[name] === value) continue
      headers.set(name, value)
      if (shared) last.before[name] = value
    }
    return headers
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
