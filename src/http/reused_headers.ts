import type { ResponseSet } from './errors'

/**
 * Makes an answer's Headers from the last answer's when it has the same
 * header names, setting only the values that changed (the request id, the
 * rate-limit counts), instead of handing Bun the plain object Elysia keeps
 * in `set.headers`: Bun makes a Response's headers from an object at about
 * 0.1 µs a header, and a page's answer has fourteen (bench/README.md,
 * "Headers made once for answers alike"). Other names, or another count of
 * them, start again from the object.
 *
 * With answers made at once (`madeAtOnce`: each Response is made, its
 * headers copied into it, before the next answer's headers are written) the
 * kept Headers are handed out themselves; otherwise several answers may be
 * made after all their headers were written, so each gets a copy.
 * The list route uses it (pets/routes.ts). A 429 has its own, narrower form
 * (ratelimit/repeated_refusal.ts), which skips making the decision's headers
 * at all and compares only those written before it: the 429 path through
 * this class measured slower in process (bench/README.md, same entry).
 */
export class ReusedHeaders {
  /** The last answer's Headers, and the values they hold by name, as `set.headers` held them. */
  #headers: Headers | undefined
  #values: Record<string, string> = {}
  #count = 0

  constructor(private readonly madeAtOnce: boolean) {}

  /** Headers holding exactly `written`, for `set.headers` once nothing more will be written to it. */
  of(written: ResponseSet['headers']): Headers {
    const kept = this.#headers
    if (kept === undefined || !this.#sameNames(written)) return this.#keep(written)
    const headers = this.madeAtOnce ? kept : new Headers(kept)
    const values = this.#values
    for (const name in written) {
      const value = String(written[name])
      if (values[name] === value) continue
      headers.set(name, value)
      if (this.madeAtOnce) values[name] = value
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
    // Handed out itself either way: copies are made from it only while it holds these values.
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
