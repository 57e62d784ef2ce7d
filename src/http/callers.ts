import type { ApiKey } from '../keys/store'

/** What the guard noted of one request with a valid key. */
interface Caller {
  key: ApiKey
  /** When it was counted against the key's quota (epoch ms); undefined when not, or once given back. */
  countedAt: number | undefined
  /** It was let through uncounted: its answer decides (ratelimit/settle.ts). */
  uncounted: boolean
  /** The shared store's version the limiter read for it, if it did (pets/shared_page_cache.ts). */
  storeVersion: string | undefined
}

/**
 * Who each request in flight is: the API key it authenticated with, and when
 * it was counted against that key's quota (or that it was let through
 * uncounted). The guard records them; the routes (Idempotency-Key scope, the
 * quota check), the quota settlement and the request log read them. Held
 * weakly, so an answered request leaves nothing; one entry per request,
 * since each entry of a weak map costs the garbage collector.
 */
export class Callers {
  #callers = new WeakMap<Request, Caller>()

  /** Notes that `request` authenticated with `key`. */
  authenticated(request: Request, key: ApiKey): void {
    this.#callers.set(request, { key, countedAt: undefined, uncounted: false, storeVersion: undefined })
  }

  /** The key `request` authenticated with; undefined without a valid key. */
  keyOf(request: Request): ApiKey | undefined {
    return this.#callers.get(request)?.key
  }

  /** The id of the key `request` authenticated with; undefined without a valid key. */
  keyIdOf(request: Request): number | undefined {
    return this.#callers.get(request)?.key.id
  }

  /**
   * Notes that `request`, authenticated, was counted against its key's quota
   * at `now` (epoch ms), and the store's version the limiter read, if it did.
   */
  counted(request: Request, now: number, storeVersion: string | undefined): void {
    const caller = this.#callers.get(request)
    if (caller === undefined) return
    caller.countedAt = now
    caller.storeVersion = storeVersion
  }

  /** The shared store's version the limiter read for `request`; undefined when it read none. */
  storeVersionOf(request: Request): string | undefined {
    return this.#callers.get(request)?.storeVersion
  }

  /** When `request` was counted, and forgets it, so a request is given back at most once; undefined if it was not. */
  takeCountedAt(request: Request): number | undefined {
    const caller = this.#callers.get(request)
    const at = caller?.countedAt
    if (at !== undefined) (caller as Caller).countedAt = undefined
    return at
  }

  /**
   * Notes that `request`, authenticated, was let through without being
   * counted (its answer decides: ratelimit/settle.ts), and the store's version the limiter read, if it did.
   */
  letThroughUncounted(request: Request, storeVersion: string | undefined): void {
    const caller = this.#callers.get(request)
    if (caller === undefined) return
    caller.uncounted = true
    caller.storeVersion = storeVersion
  }

  /** Whether `request` was let through uncounted, and forgets it, so it is counted at most once. */
  takeUncounted(request: Request): boolean {
    const caller = this.#callers.get(request)
    if (caller === undefined || !caller.uncounted) return false
    caller.uncounted = false
    return true
  }
}
