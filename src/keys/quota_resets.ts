import type { ApiKey } from './store'

/**
 * Finds, each time a store reloads its key map, the keys whose
 * `quotaResetAt` moved since the last load, and tells the listeners once per
 * reset. The first load only takes note: a reset made before this process
 * started was applied by the servers running then (a restarted memory
 * limiter reads its counters back from after it).
 */
export class QuotaResets {
  #seen = new Map<number, string | null>()
  #loaded = false
  #listeners: ((key: ApiKey) => void)[] = []

  listen(listener: (key: ApiKey) => void): void {
    this.#listeners.push(listener)
  }

  /** Called with every (unrevoked) key after each load of the map. */
  loaded(keys: Iterable<ApiKey>): void {
    const seen = new Map<number, string | null>()
    for (const key of keys) {
      seen.set(key.id, key.quotaResetAt)
      const before = this.#seen.get(key.id)
      if (this.#loaded && key.quotaResetAt !== null && key.quotaResetAt !== before)
        for (const listener of this.#listeners) listener(key)
    }
    this.#seen = seen
    this.#loaded = true
  }
}
