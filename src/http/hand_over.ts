import type { Awaitable } from '../awaitable'

/** Elysia's handle, as a wrap receives it: the rest of the app for one request. */
export type Handle = (request: Request) => Awaitable<Response>

/** An Elysia `wrap`'s handle as what it is: the rest of the app for one request. */
export function asHandle(handle: unknown): Handle {
  return handle as Handle
}

/**
 * What a wrap (Elysia's `wrap`, around the whole chain) hands to an
 * `onRequest` hook for the same request. The wrap calls the rest of the
 * app through `hand`, and Elysia runs its hooks inside that call, before
 * anything can wait, so the value is at hand without a lookup. A request
 * whose hook runs later (a wrap inside this one waited first:
 * auth/guard.ts, for a limiter that answers later) finds it by request.
 */
export class HandOver<T> {
  #request: Request | undefined
  #value: T | undefined
  #taken = false
  #later = new WeakMap<Request, T>()

  /** `handle(request)`, with `value` held for `take(request)`. */
  hand(request: Request, value: T, handle: Handle): Awaitable<Response> {
    this.#request = request
    this.#value = value
    this.#taken = false
    const answered = handle(request)
    if (!this.#taken && answered instanceof Promise) this.#later.set(request, value)
    this.#request = undefined
    this.#value = undefined
    return answered
  }

  /** What the wrap handed over for `request`, once; undefined when it handed nothing (the request came another way). */
  take(request: Request): T | undefined {
    if (this.#request === request) {
      const value = this.#value
      this.#taken = true
      this.#request = undefined
      this.#value = undefined
      return value
    }
    const value = this.#later.get(request)
    if (value !== undefined) this.#later.delete(request)
    return value
  }
}
