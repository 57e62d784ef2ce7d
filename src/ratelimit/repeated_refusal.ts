import type { ErrorBody, ResponseSet } from '../http/errors'
import { applyRateDecision } from './apply_decision'
import type { RateDecision } from './decision'

/** The last refusal answered: its decision, the headers it was answered with, and the body. */
interface Answered {
  decision: RateDecision
  /** The headers written before the decision (the wrap's), as last answered, and how many. */
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
 * header, and a refusal has eleven; copying made Headers costs a fifth of
 * that (bench/README.md, "A refusal that repeats"). The answer is exact: the
 * decision must be the same in every field, and the headers written before
 * it the same names, of which only the changed values (the request id) are
 * set again.
 *
 * What it hands Elysia in `set.headers` is then Headers, not an object:
 * nothing may write to `set.headers` after a refusal, which is so (the guard
 * answers at once, and the wrap's headers are written before it).
 */
export class RepeatedRefusal {
  #last: Answered | undefined

  /** As applyRateDecision: the rate-limit headers on `set`, and for a refusal its status and Error body. */
  apply(set: ResponseSet, decision: RateDecision): ErrorBody | undefined {
    if (decision.refusal === undefined) return applyRateDecision(set, decision)
    const last = this.#last
    if (last !== undefined && sameDecision(last.decision, decision) && this.#refresh(last, set.headers)) {
      set.headers = last.headers as unknown as ResponseSet['headers']
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

  /** Whether `written` has the names the last answer had before its decision; their values made current in its Headers. */
  #refresh(last: Answered, written: ResponseSet['headers']): boolean {
    let count = 0
    for (const name in written) {
      const value = String(written[name])
      const had = last.before[name]
      if (had === undefined) return false
      if (had !== value) {
        last.before[name] = value
        last.headers.set(name, value)
      }
      count++
    }
    return count === last.beforeCount
  }
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
