import type { ApiKey } from '../keys/store'

/**
 * Who each request in flight is: the API key it authenticated with. The
 * guard records it; the routes (Idempotency-Key scope, the quota check) and
 * the request log read it. Held weakly, so an answered request leaves nothing.
 */
export class Callers {
  #keys = new WeakMap<Request, ApiKey>()

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
}
