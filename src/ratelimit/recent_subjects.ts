import type { Subject } from './limiter'
import { NumberTable } from './number_table'

/**
 * Subjects a shard holds at least before the map is split: below this one
 * table is cheap to grow and to rotate, above it each is split in up to
 * MAX_SHARDS, so that neither growing a table (a rehash of every entry) nor
 * a rotation pauses the event loop for more than a few milliseconds
 * (bench/README.md, "Keeping the limiter across restarts"). Shards fill
 * alike (neighbouring addresses go to each in turn), so each grows at a
 * load of its own: they do not all grow during the same request.
 */
const SHARD_SUBJECTS = 32_768
const MAX_SHARDS = 8

/**
 * A map of at most about `max` subjects that forgets the least recently
 * written first, in two generations (the scheme of quick-lru): writes go to
 * the recent table; when it holds its share, it becomes the older one and the
 * older one is dropped whole, so forgetting costs O(1) amortized and no
 * per-entry bookkeeping. A subject written again while in the older table
 * moves to the recent one. What is dropped was not written while at least a
 * generation's worth of others were. Entries `keep` holds on to (a blocked
 * caller) are carried into the new generation instead, so they outlive any
 * flood. A large map is split by subject into shards, each with its own
 * generations.
 */
export class RecentSubjects {
  readonly #shards: Generations[]
  readonly #mask: number
  // Subjects that are not numbers: only the one of requests without an address, so never many.
  readonly #text = new Map<string, number>()

  constructor(max: number, keep: (value: number) => boolean) {
    let count = 1
    while (count < MAX_SHARDS && max / (count * 2) >= SHARD_SUBJECTS) count *= 2
    this.#mask = count - 1
    const generation = Math.max(1, Math.floor(max / 2 / count))
    this.#shards = Array.from({ length: count }, (_, shard) => new Generations(generation, 0.5 + shard / 32, keep))
  }

  get(subject: Subject): number | undefined {
    return typeof subject === 'number' ? this.#shardOf(subject).get(subject) : this.#text.get(subject)
  }

  set(subject: Subject, value: number): void {
    if (typeof subject === 'number') this.#shardOf(subject).set(subject, value)
    else this.#text.set(subject, value)
  }

  get size(): number {
    let size = this.#text.size
    for (const shard of this.#shards) size += shard.size
    return size
  }

  /**
   * Every subject held, once: each shard as it is when the iteration reaches
   * it (both generations copied together, so a subject moved from the older
   * to the recent one meanwhile is neither missed nor given twice).
   */
  *entries(): IterableIterator<[Subject, number]> {
    yield* this.#text
    for (const shard of this.#shards) yield* shard.entries()
  }

  clear(): void {
    this.#text.clear()
    for (const shard of this.#shards) shard.clear()
  }

  // Spread by the subject's low bits.
  #shardOf(subject: number): Generations {
    return this.#shards[subject & this.#mask]!
  }
}

/** One shard: the recent and the older generation, each a NumberTable. */
class Generations {
  #recent: NumberTable
  #older: NumberTable

  constructor(
    readonly generation: number,
    readonly maxLoad: number,
    readonly keep: (value: number) => boolean,
  ) {
    this.#recent = new NumberTable(16, maxLoad)
    this.#older = new NumberTable(16, maxLoad)
  }

  get(subject: number): number | undefined {
    return this.#recent.get(subject) ?? this.#older.get(subject)
  }

  set(subject: number, value: number): void {
    if (this.#older.size !== 0) this.#older.delete(subject)
    if (this.#recent.size >= this.generation && !this.#recent.has(subject)) this.#rotate()
    this.#recent.set(subject, value)
  }

  get size(): number {
    return this.#recent.size + this.#older.size
  }

  *entries(): IterableIterator<[number, number]> {
    const recent = this.#recent.copy()
    const older = this.#older.copy()
    yield* recent.entries()
    yield* older.entries()
  }

  clear(): void {
    this.#recent = new NumberTable(16, this.maxLoad)
    this.#older = new NumberTable(16, this.maxLoad)
  }

  #rotate(): void {
    const dropped = this.#older
    this.#older = this.#recent
    // As many slots as the generation that filled up: the new one grows no more, once the first has.
    const recent = new NumberTable(this.#older.slots, this.maxLoad)
    dropped.forEach((subject, value) => {
      if (this.keep(value)) recent.set(subject, value)
    })
    this.#recent = recent
  }
}
