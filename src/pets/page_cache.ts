import { type Awaitable, andThen } from '../awaitable'
import { type DeleteOutcome, type PetChanges, type PetPrecondition, samePet, type UpdateOutcome } from './changes'
import type { IdempotencyClaim } from './idempotency'
import { type PageKey, pageKey } from './page_key'
import type { Inventory, NewPet, Pet, PetStatus } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/** How many pages beyond the first ones are kept, the least recently read dropped first. */
export const LATER_PAGES_KEPT = 1024

/** A kept page, and which pets it is a page of: those with `status` (all when undefined) and an id above `after`. */
interface KeptPage {
  page: PetPage
  status: PetStatus | undefined
  after: number
}

/**
 * What the page cache asks before every list: the data version
 * (DataVersionWatcher.current) and, from db/turn_reads.ts, a way to read a
 * page it does not keep without the store asking the version again.
 */
export interface PageVersions {
  current(): number
  readAsked?<T>(read: () => T): T
}

/**
 * A PetStore in front of the SQLite one that keeps the pages it has read,
 * and drops exactly those a committed change can alter, so a read after a
 * change never sees a page from before it. A page holds the pets of its
 * status (or all) with ids from `after` up to its last, and says whether
 * more follow (`more`). So:
 * - a pet that joins those pets (a create, which takes the highest id, or a
 *   status moved to the page's) alters the pages whose ids it falls in, the
 *   page without a next one included;
 * - a pet that leaves them (a delete, or a status moved away) alters every
 *   page from before it, since the last of those may lose its next page;
 * - a pet changed in place alters the pages whose ids it falls in.
 * First pages (no `after`: what most clients read) are all kept, one per
 * limit and status, so at most 400; later pages (a deep link read again and
 * again) are kept from their second read, up to LATER_PAGES_KEPT, least
 * recently read dropped first: pages read once (a client walking the list,
 * random pages) would only churn memory, which cost the cold list CPU
 * (bench/README.md, "What the changes since 758cb1e did").
 * This process's own changes drop exactly the pages they alter (an order's
 * too, which the order store reports to `petChanged`); a commit by
 * any other connection (a second server on the same file, the CLI) drops
 * every page at the next list read, which asks `versions`
 * (DataVersionWatcher.current, through db/turn_reads.ts: one read of the
 * WAL-index header while nothing moved, which also serves the read of a
 * page not kept).
 */
export class CachedPetStore implements PetStore {
  readonly listsAtOnce: boolean | undefined
  #store: PetStore
  #versions: PageVersions
  #seenVersion = -1
  #firstPages = new Map<PageKey, KeptPage>()
  /** In the order they were last read, so the first is the one to drop. */
  #laterPages = new Map<PageKey, KeptPage>()
  /** Later pages read once and not kept, by key: the second read keeps one. */
  #readOnce = new Set<PageKey>()
  /** Where the pages without a next one are, which a create drops: a few, however many pages are kept. */
  #endPages = new Set<PageKey>()
  #hits = 0
  #misses = 0

  constructor(store: PetStore, versions: PageVersions) {
    this.listsAtOnce = store.listsAtOnce
    this.#store = store
    this.#versions = versions
  }

  list(query: PetListQuery): Awaitable<PetPage> {
    const version = this.#versions.current()
    if (version !== this.#seenVersion) {
      this.#forgetAll()
      this.#seenVersion = version
    }
    const first = query.after === undefined || query.after === 0
    const key = pageKey(query)
    const pages = first ? this.#firstPages : this.#laterPages
    const kept = pages.get(key)
    if (kept) {
      this.#hits++
      if (!first) {
        // Read again: to the end of the order, the last to be dropped.
        pages.delete(key)
        pages.set(key, kept)
      }
      return kept.page
    }
    this.#misses++
    const read = () => this.#store.list(query)
    const page = this.#versions.readAsked ? this.#versions.readAsked(read) : read()
    if (page instanceof Promise) return page
    if (!first) {
      if (!this.#readOnce.delete(key)) {
        if (this.#readOnce.size >= LATER_PAGES_KEPT) this.#readOnce.clear()
        this.#readOnce.add(key)
        return page
      }
      if (pages.size >= LATER_PAGES_KEPT) pages.delete(pages.keys().next().value!)
    }
    pages.set(key, { page, status: query.status, after: query.after ?? 0 })
    if (!page.more) this.#endPages.add(key)
    return page
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome> {
    // Dropped once the write has committed: a page read while it was pending is stale by then.
    return andThen(this.#store.create(pet, claim), (outcome) => {
      this.#dropEndPages()
      return outcome
    })
  }

  update(id: number, changes: PetChanges, precondition?: PetPrecondition): Awaitable<UpdateOutcome> {
    return andThen(this.#store.update(id, changes, precondition), (outcome) => {
      if (outcome.kind === 'updated') this.#dropAltered(id, outcome.previous, outcome.pet)
      return outcome
    })
  }

  delete(id: number, precondition?: PetPrecondition): Awaitable<DeleteOutcome> {
    return andThen(this.#store.delete(id, precondition), (outcome) => {
      if (outcome.kind === 'deleted') this.#dropAltered(id, outcome.pet, undefined)
      return outcome
    })
  }

  inventory(): Awaitable<Inventory> {
    return this.#store.inventory()
  }

  /**
   * Told by the order store, once its commit is done, that pet `before.id`
   * changed (its status, as an order moved it): drops the pages that alters.
   */
  petChanged(before: Pet, after: Pet): void {
    this.#dropAltered(before.id, before, after)
  }

  /** After a create: the pages without a next one, which the new pet joins (or now follows). */
  #dropEndPages(): void {
    // The two maps' keys never collide (pageKey).
    for (const key of this.#endPages) {
      this.#firstPages.delete(key)
      this.#laterPages.delete(key)
    }
    this.#endPages.clear()
  }

  /** After pet `id` changed from `before` to `after` (undefined: deleted): the pages it alters, by the rules above. */
  #dropAltered(id: number, before: Pet, after: Pet | undefined): void {
    if (after !== undefined && samePet(before, after)) return
    for (const pages of [this.#firstPages, this.#laterPages])
      for (const [key, kept] of pages) {
        if (!alters(kept, id, before, after)) continue
        pages.delete(key)
        this.#endPages.delete(key)
      }
  }

  #forgetAll(): void {
    this.#firstPages.clear()
    this.#laterPages.clear()
    this.#readOnce.clear()
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

/** Whether a change to pet `id` (from `before` to `after`; undefined: deleted) can alter a kept page. */
function alters({ page, status, after: from }: KeptPage, id: number, before: Pet, after: Pet | undefined): boolean {
  if (id <= from) return false
  const wasIn = status === undefined || before.status === status
  const isIn = after !== undefined && (status === undefined || after.status === status)
  // Leaving the page's pets: every page from before it may lose its last next pet.
  if (wasIn && !isIn) return true
  if (!wasIn && !isIn) return false
  // Joining them, or changed among them: the pages whose ids it falls in.
  const last = page.pets.at(-1)
  return !page.more || last === undefined || id <= last.id
}
