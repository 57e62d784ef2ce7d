import type { ResponseSet } from './errors'

/**
 * Makes an answer's Response at once, its Headers made from the last
 * answer's when it has the same header names, only the values that changed
 * (the request id, the rate-limit counts) set, instead of leaving Elysia to
 * make it from the plain object it keeps in `set.headers`: Bun makes a
 * Response's headers from an object at about 0.1 µs a header, and a page's
 * answer has fourteen (bench/README.md, "Headers made once for answers
 * alike"). Other names, or another count of them, start again from the
 * object.
 *
 * The Response is made here, its headers copied into it, before any other
 * answer's headers are written, so one Headers serves every answer, whether
 * the route waited for its page and quota or not; the route returns it and
 * Elysia hands it to Bun as it is (`set.headers` is left empty).
 * The list route and create use it (pets/routes.ts). A 429 has its own, narrower form
 * (ratelimit/repeated_refusal.ts), which skips making the decision's headers
 * at all and compares only those written before it: the 429 path through
 * this class measured slower in process (bench/README.md, same entry).
 */
export class ReusedHeaders {
  /** The last answer's Headers, and the values they hold by name, as `set.headers` held them. */
  #headers: Headers | undefined
  #values: Record<string, string> = {}
  #count = 0

  /**
   * An answer of `body` with exactly the status (200 when unset) and the
   * headers in `set`, which it leaves as Elysia's defaults (no headers,
   * status 200): with anything there, Elysia would make the Response again,
   * copying it. Nothing is written to `set` after it.
   */
  respond(body: string | Uint8Array, set: ResponseSet): Response {
    const status = set.status ?? 200
    if (typeof status !== 'number') throw new TypeError(`an answer made here has a numeric status, not "${status}"`)
    return handedOnAsIs(new Response(body, { status, headers: this.#headersFor(set.headers) }), set)
  }

  #headersFor(written: ResponseSet['headers']): Headers {
    const headers = this.#headers
    if (headers === undefined || !this.#sameNames(written)) return this.#keep(written)
    const values = this.#values
    for (const name in written) {
      const value = String(written[name])
      if (values[name] === value) continue
      headers.set(name, value)
      values[name] = value
    }
    return headers
  }

  #keep(written: ResponseSet['headers']): Headers {
    const values: Record<string, string> = {}
    let count = 0
    for (const name in written) {
      values[name] = String(written[name])
      count++
    }
    this.#values = values
    this.#count = count
    this.#headers = new Headers(values)
    return this.#headers
  }

  /** Whether `written` has the names the kept Headers have, and no other. */
  #sameNames(written: ResponseSet['headers']): boolean {
    const values = this.#values
    let count = 0
    for (const name in written) {
      if (values[name] === undefined) return false
      count++
    }
    return count === this.#count
  }
}

/**
 * `response`, an answer made at once, with `set` left as Elysia's defaults
 * (no headers, status 200): with anything there, Elysia would make the
 * Response again, copying it, instead of handing it on as it is.
 */
export function handedOnAsIs(response: Response, set: ResponseSet): Response {
  set.headers = {}
  set.status = 200
  return response
}
