/**
 * Who each request in flight is: the id of the API key it authenticated
 * with. The guard records it; the routes (Idempotency-Key scope) and the
 * request log read it. Held weakly, so an answered request leaves nothing.
 */
export class Callers {
  #keyIds = new WeakMap<Request, number>()

  /** Notes that `request` authenticated with the key `keyId`. */
  authenticated(request: Request, keyId: number): void {
    this.#keyIds.set(request, keyId)
  }

  /** The id of the key `request` authenticated with; undefined without a valid key. */
  keyIdOf(request: Request): number | undefined {
    return this.#keyIds.get(request)
  }
}
