import { type Awaitable, andThen } from '../awaitable'
import type { DataVersionWatcher } from '../db/data_version'
import type { IdempotencyClaim } from './idempotency'
import type { NewPet, Pet } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/** How many pages beyond the first ones are kept, the least recently read dropped first. */
export const LATER_PAGES_KEPT = 1024

/**
 * A PetStore in front of the SQLite one that keeps the pages it has read.
 * Pets are never changed or deleted, and a create appends the highest id, so
 * a page that has a next one (`more`) can never change: it stays until
 * another process writes the file. Only a page at the end (no `more`) can
 * change with a create, and those are dropped when one commits. First pages
 * (no `after`: what most clients read) are all kept, one per limit and
 * status, so at most 400; later pages (a deep link read again and again)
 * are kept from their second read, up to LATER_PAGES_KEPT, least recently
 * read dropped first: pages read once (a client walking the list, random
 * pages) would only churn memory, which cost the cold list CPU
 * (bench/README.md, "What the changes since 758cb1e did").
 * One process owns every pet write (the CLI never writes pets), so a create
 * here is the only change to expect; the database's DataVersionWatcher also
 * clears everything, within DATA_VERSION_CHECK_MS, if anything else ever
 * writes the file. Not for a store that several instances share.
 */
export class CachedPetStore implements PetStore {
  readonly listsAtOnce: boolean | undefined
  #store: PetStore
  #watcher: DataVersionWatcher
  #seenVersion = -1
  #firstPages = new Map<number | string, PetPage>()
  /** In the order they were last read, so the first is the one to drop. */
  #laterPages = new Map<string, PetPage>()
  /** Later pages read once and not kept, by key: the second read keeps one. */
  #readOnce = new Set<string>()
  /** Where the pages without a next one are, which a create drops: a few, however many pages are kept. */
  #endPages = new Set<number | string>()
  #hits = 0
  #misses = 0

  constructor(store: PetStore, watcher: DataVersionWatcher) {
    this.listsAtOnce = store.listsAtOnce
    this.#store = store
    this.#watcher = watcher
  }

  list(query: PetListQuery): Awaitable<PetPage> {
    const version = this.#watcher.current()
    if (version !== this.#seenVersion) {
      this.#firstPages.clear()
      this.#laterPages.clear()
      this.#readOnce.clear()
      this.#endPages.clear()
      this.#seenVersion = version
    }
    const first = query.after === undefined || query.after === 0
    const key = first
      ? query.status === undefined
        ? query.limit
        : `${query.limit}:${query.status}`
      : `${query.limit}:${query.status ?? ''}:${query.after}`
    const pages: Map<number | string, PetPage> = first ? this.#firstPages : this.#laterPages
    const cached = pages.get(key)
    if (cached) {
      this.#hits++
      if (!first) {
        // Read again: to the end of the order, the last to be dropped.
        pages.delete(key)
        pages.set(key, cached)
      }
      return cached
    }
    this.#misses++
    const page = this.#store.list(query)
    if (page instanceof Promise) return page
    if (!first) {
      if (!this.#readOnce.delete(key as string)) {
        if (this.#readOnce.size >= LATER_PAGES_KEPT) this.#readOnce.clear()
        this.#readOnce.add(key as string)
        return page
      }
      if (pages.size >= LATER_PAGES_KEPT) pages.delete(pages.keys().next().value!)
    }
    pages.set(key, page)
    if (!page.more) this.#endPages.add(key)
    return page
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome> {
    // Dropped once the write has committed: a page read while it was pending is stale by then.
    return andThen(this.#store.create(pet, claim), (outcome) => {
      this.#dropLastPages()
      return outcome
    })
  }

  /** After a create: the pages without a next one, which the new pet may join (or now follow). */
  #dropLastPages(): void {
    // The two maps' keys never collide: a later page's key names its `after`.
    for (const key of this.#endPages) {
      this.#firstPages.delete(key)
      this.#laterPages.delete(key as string)
    }
    this.#endPages.clear()
  }

  /** Page reads since start: answered from the cache (hits), or read from the store (misses). */
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
