import type { Awaitable } from '../awaitable'
import type { DataVersionWatcher } from '../db/data_version'
import type { IdempotencyClaim } from './idempotency'
import type { NewPet, Pet } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/**
 * A PetStore in front of the SQLite one that keeps first pages (no `after`)
 * until the next write: they are what most clients read, and every create can
 * change them. Later pages come from SQLite's index each time; caching pages
 * picked at random would cost more than it saves. At most one page per
 * limit and status, so at most 400. One process owns every pet write (the CLI
 * never writes pets), so a create here clears it exactly; the database's
 * DataVersionWatcher also clears it, within DATA_VERSION_CHECK_MS, if anything
 * else ever writes the file. Not for a store that several instances share.
 */
export class CachedPetStore implements PetStore {
  #store: PetStore
  #watcher: DataVersionWatcher
  #seenVersion = -1
  #pages = new Map<number | string, PetPage>()
  #hits = 0
  #misses = 0

  constructor(store: PetStore, watcher: DataVersionWatcher) {
    this.#store = store
    this.#watcher = watcher
  }

  list(query: PetListQuery): Awaitable<PetPage> {
    if (query.after !== undefined && query.after !== 0) return this.#store.list(query)
    const version = this.#watcher.current()
    if (version !== this.#seenVersion) {
      this.#pages.clear()
      this.#seenVersion = version
    }
    const key = query.status === undefined ? query.limit : `${query.limit}:${query.status}`
    const cached = this.#pages.get(key)
    if (cached) {
      this.#hits++
      return cached
    }
    this.#misses++
    const page = this.#store.list(query)
    if (!(page instanceof Promise)) this.#pages.set(key, page)
    return page
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome> {
    const outcome = this.#store.create(pet, claim)
    // Cleared once the write has committed: a page read while it was pending is stale by then.
    if (outcome instanceof Promise) {
      return outcome.then((done) => {
        this.#pages.clear()
        return done
      })
    }
    this.#pages.clear()
    return outcome
  }

  /** First-page reads since start: answered from the cache (hits), or read from the store (misses). */
  lookups(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses }
  }

  get(id: number): Awaitable<Pet | undefined> {
    return this.#store.get(id)
  }

  answers(): Awaitable<boolean> {
    return this.#store.answers()
  }
}
