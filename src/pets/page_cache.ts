import type { Database, Statement } from 'bun:sqlite'
import type { Awaitable } from '../awaitable'
import type { IdempotencyClaim } from './idempotency'
import type { NewPet, Pet } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/** How many distinct pages are kept; past it the cache starts again empty. */
export const PAGE_CACHE_SIZE = 4096

/**
 * A PetStore in front of the SQLite one that keeps the pages it has read
 * until the next write. One process owns every pet write (the CLI never
 * writes pets), so a create here clears it exactly; `PRAGMA data_version`
 * also clears it if anything else ever writes the file. Not for a store that
 * several instances share.
 */
export class CachedPetStore implements PetStore {
  #store: PetStore
  #dataVersion: Statement<{ data_version: number }, []>
  #seenVersion = -1
  #pages = new Map<string, PetPage>()

  constructor(store: PetStore, db: Database) {
    this.#store = store
    this.#dataVersion = db.prepare('PRAGMA data_version')
  }

  list(query: PetListQuery): Awaitable<PetPage> {
    const version = this.#dataVersion.get()!.data_version
    if (version !== this.#seenVersion) {
      this.#pages.clear()
      this.#seenVersion = version
    }
    const key = `${query.limit}:${query.status ?? ''}:${query.after ?? 0}`
    const cached = this.#pages.get(key)
    if (cached) return cached
    const page = this.#store.list(query)
    if (page instanceof Promise) return page
    if (this.#pages.size >= PAGE_CACHE_SIZE) this.#pages.clear()
    this.#pages.set(key, page)
    return page
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome> {
    const outcome = this.#store.create(pet, claim)
    this.#pages.clear()
    return outcome
  }

  get(id: number): Awaitable<Pet | undefined> {
    return this.#store.get(id)
  }

  answers(): Awaitable<boolean> {
    return this.#store.answers()
  }
}
