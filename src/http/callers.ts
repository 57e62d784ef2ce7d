import type { ApiKey } from '../keys/store'

/**
 * Who each request in flight is: the API key it authenticated with, and when
 * it was counted against that key's quota (or that it was let through
 * uncounted). The guard records them; the routes (Idempotency-Key scope, the
 * quota check), the quota settlement and the request log read them. Held weakly, so an answered request leaves nothing.
 */
export class Callers {
  #keys = new WeakMap<Request, ApiKey>()
  #countedAt = new WeakMap<Request, number>()
  #uncounted = new WeakSet<Request>()

  /** Notes that `request` authenticated with `key`. */
  authenticated(request: Request, key: ApiKey): void {
    this.#keys.set(request, key)
  }

  /** The key `request` authenticated with; undefined without a valid key. */
  keyOf(request: Request): ApiKey | undefined {
    return this.#keys.get(request)
  }

  /** The id of the key `request` authenticated with; undefined without a valid key. */
  keyIdOf(request: Request): number | undefined {
    return this.#keys.get(request)?.id
  }

  /** Notes that `request` was counted against its key's quota at `now` (epoch ms). */
  counted(request: Request, now: number): void {
    this.#countedAt.set(request, now)
  }

  /** When `request` was counted, and forgets it, so a request is given back at most once; undefined if it was not. */
  takeCountedAt(request: Request): number | undefined {
    const at = this.#countedAt.get(request)
    if (at !== undefined) this.#countedAt.delete(request)
    return at
  }

  /** Notes that `request` was let through without being counted: its answer decides (ratelimit/settle.ts). */
  letThroughUncounted(request: Request): void {
    this.#uncounted.add(request)
  }

  /** Whether `request` was let through uncounted, and forgets it, so it is counted at most once. */
  takeUncounted(request: Request): boolean {
    return this.#uncounted.delete(request)
  }
}
