import { type Awaitable, andThen } from '../awaitable'
import type { Logger } from '../log'
import type { DeleteOutcome, PetChanges, PetPrecondition, UpdateOutcome } from './changes'
import type { IdempotencyClaim } from './idempotency'
import { type PageKey, pageKey } from './page_key'
import type { Inventory, NewPet, Pet } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/** How many pages an instance keeps at most; past it, all are dropped and kept anew. */
export const SHARED_PAGES_KEPT = 1024

/** How often an instance that could not mark its committed change in Redis tries again. */
const RETRY_CHANGE_MS = 1000

/**
 * Where the instances sharing a store agree on its version: Redis, through
 * the limiter's connection (RedisRateLimiter). Each list request's version
 * is read in its limiter call, so it costs no round trip of its own.
 */
export interface SharedStoreVersion {
  /** Sets a new version, after a committed change; rejects when it cannot. */
  storeChanged(): Promise<void>
}

/**
 * A page cache for instances sharing PostgreSQL. Every committed write sets
 * a new random version in Redis before it is acknowledged, and every request
 * reads the version in its limiter call (`storeVersion`), so a page read
 * after a reply said version V holds every change acknowledged before V was
 * set. The cache keeps the pages read under the version it last saw, and
 * answers a request from them only when the request read that same version;
 * a request that read another drops them all. So a change acknowledged by
 * any instance is seen by the very next read on every instance, and a
 * request that read no version (Redis out of reach, or no version set yet)
 * reads the store. A version read across a broken connection never matches
 * one read before it (RedisRateLimiter), so a Redis that restarted or missed
 * writes while unreachable never serves an old page.
 *
 * What it gives up: a write on one instance drops every page on every
 * instance (SQLite's cache drops only those the change alters), and an
 * instance that cannot reach Redis when it commits acknowledges the write
 * anyway (it is committed) and marks it once Redis answers, trying every
 * second: until then instances that still reach Redis may serve pages from
 * before it (docs/operations.md, "Several instances").
 */
export class SharedPageCache implements PetStore {
  readonly listsAtOnce = false
  #store: PetStore
  #version: SharedStoreVersion
  #logger: Logger
  #seenVersion: string | undefined
  #pages = new Map<PageKey, PetPage>()
  /** Later pages read once under the current version: the second read keeps one, as in CachedPetStore. */
  #readOnce = new Set<PageKey>()
  #retry: Timer | undefined
  #hits = 0
  #misses = 0

  constructor(store: PetStore, version: SharedStoreVersion, logger: Logger) {
    this.#store = store
    this.#version = version
    this.#logger = logger
  }

  list(query: PetListQuery, storeVersion?: string): Awaitable<PetPage> {
    if (storeVersion === undefined || this.#retry !== undefined) return this.#store.list(query)
    if (storeVersion !== this.#seenVersion) {
      this.#forgetAll()
      this.#seenVersion = storeVersion
    }
    const first = query.after === undefined || query.after === 0
    const key = pageKey(query)
    const kept = this.#pages.get(key)
    if (kept !== undefined) {
      this.#hits++
      return kept
    }
    this.#misses++
    // Kept under the version this request read, even if a write has committed since the read began: the
    // write set a new version before it was acknowledged, and a request that reads it drops this page.
    return andThen(this.#store.list(query), (page) => {
      if (!first && !this.#readOnce.delete(key) && this.#noteReadOnce(key)) return page
      if (this.#pages.size >= SHARED_PAGES_KEPT) this.#pages.clear()
      this.#pages.set(key, page)
      return page
    })
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome> {
    return this.afterChange(this.#store.create(pet, claim))
  }

  update(id: number, changes: PetChanges, precondition?: PetPrecondition): Awaitable<UpdateOutcome> {
    return this.afterChange(this.#store.update(id, changes, precondition))
  }

  delete(id: number, precondition?: PetPrecondition): Awaitable<DeleteOutcome> {
    return this.afterChange(this.#store.delete(id, precondition))
  }

  /**
   * Once `write` has ended, committed or not (a refusal, or a failure that
   * may have committed: marking it then costs a round trip and nothing
   * else): a new version set in Redis before the outcome is given, so no
   * instance's next read (this one's included) finds a page from before it.
   */
  async afterChange<T>(write: Awaitable<T>): Promise<T> {
    try {
      return await write
    } finally {
      try {
        await this.#version.storeChanged()
      } catch (error) {
        this.#markLater(error)
      }
    }
  }

  inventory(): Awaitable<Inventory> {
    return this.#store.inventory()
  }

  get(id: number): Awaitable<Pet | undefined> {
    return this.#store.get(id)
  }

  answers(): Awaitable<boolean> {
    return this.#store.answers()
  }

  /** Page reads since start: answered from the cache (hits), or read from the store (misses). */
  lookups(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses }
  }

  /** Stops trying to mark a change (at stop). */
  close(): void {
    clearInterval(this.#retry)
    this.#retry = undefined
  }

  /** True: the key is now noted as read once (bounded as the pages are), and the page is not kept yet. */
  #noteReadOnce(key: PageKey): boolean {
    if (this.#readOnce.size >= SHARED_PAGES_KEPT) this.#readOnce.clear()
    this.#readOnce.add(key)
    return true
  }

  /** A committed change Redis could not be told of: told every RETRY_CHANGE_MS until it is; no page is kept meanwhile. */
  #markLater(error: unknown): void {
    if (this.#retry !== undefined) return
    this.#logger.warn(
      'a committed change could not be marked in Redis: other instances may serve older pages until it is',
      {
        error: String((error as Error)?.message ?? error),
      },
    )
    this.#retry = setInterval(() => {
      this.#version.storeChanged().then(
        () => {
          this.close()
          this.#logger.info('the committed change is marked in Redis; every instance reads it now')
        },
        () => {},
      )
    }, RETRY_CHANGE_MS)
    this.#retry.unref()
  }

  #forgetAll(): void {
    this.#pages.clear()
    this.#readOnce.clear()
  }
}
