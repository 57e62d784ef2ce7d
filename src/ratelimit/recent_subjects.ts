import type { Subject } from './limiter'

/**
 * A map of at most about `max` subjects that forgets the least recently
 * used first, in two generations (the scheme of quick-lru): writes go to the
 * recent map; when it holds max/2, it becomes the older one and the older
 * one is dropped whole, so forgetting costs O(1) amortized and no per-entry
 * bookkeeping. A subject read from the older map moves to the recent one.
 * What is dropped was not used while at least max/2 others were. Entries
 * `keep` holds on to (a blocked caller) are carried into the new generation
 * instead, so they outlive any flood.
 */
export class RecentSubjects {
  #recent = new Map<Subject, number>()
  #older = new Map<Subject, number>()
  readonly #generation: number
  readonly #keep: (value: number) => boolean

  constructor(max: number, keep: (value: number) => boolean) {
    this.#generation = Math.max(1, Math.floor(max / 2))
    this.#keep = keep
  }

  get(subject: Subject): number | undefined {
    return this.#recent.get(subject) ?? this.#older.get(subject)
  }

  set(subject: Subject, value: number): void {
    if (this.#older.size !== 0) this.#older.delete(subject)
    if (!this.#recent.has(subject) && this.#recent.size >= this.#generation) this.#rotate()
    this.#recent.set(subject, value)
  }

  get size(): number {
    return this.#recent.size + this.#older.size
  }

  /** Every subject held, recent ones last. */
  *entries(): IterableIterator<[Subject, number]> {
    yield* this.#older
    yield* this.#recent
  }

  clear(): void {
    this.#recent = new Map()
    this.#older = new Map()
  }

  #rotate(): void {
    const dropped = this.#older
    this.#older = this.#recent
    this.#recent = new Map()
    for (const [subject, value] of dropped) if (this.#keep(value)) this.#recent.set(subject, value)
  }
}
