import type { Subject } from './limiter'

/**
 * Subjects a shard holds at least before the map is split: below this one
 * map is cheap to grow and to rotate, above it each is split in up to
 * MAX_SHARDS, so that neither growing a map (a rehash of every entry) nor a
 * rotation pauses the event loop for more than about a millisecond
 * (bench/README.md, "Keeping the limiter across restarts").
 */
const SHARD_SUBJECTS = 32_768
const MAX_SHARDS = 8

/**
 * A map of at most about `max` subjects that forgets the least recently
 * used first, in two generations (the scheme of quick-lru): writes go to the
 * recent map; when it holds its share, it becomes the older one and the
 * older one is dropped whole, so forgetting costs O(1) amortized and no
 * per-entry bookkeeping. A subject read from the older map moves to the
 * recent one. What is dropped was not used while at least a generation's
 * worth of others were. Entries `keep` holds on to (a blocked caller) are
 * carried into the new generation instead, so they outlive any flood. A
 * large map is split by subject into shards, each with its own generations.
 */
export class RecentSubjects {
  readonly #shards: Generations[]
  readonly #mask: number

  constructor(max: number, keep: (value: number) => boolean) {
    let count = 1
    while (count < MAX_SHARDS && max / (count * 2) >= SHARD_SUBJECTS) count *= 2
    this.#mask = count - 1
    const generation = Math.max(1, Math.floor(max / 2 / count))
    this.#shards = Array.from({ length: count }, () => new Generations(generation, keep))
  }

  get(subject: Subject): number | undefined {
    return this.#shardOf(subject).get(subject)
  }

  set(subject: Subject, value: number): void {
    this.#shardOf(subject).set(subject, value)
  }

  get size(): number {
    let size = 0
    for (const shard of this.#shards) size += shard.size
    return size
  }

  /** Every subject held, in each shard recent ones last: the maps as they are when it starts, read as they change. */
  *entries(): IterableIterator<[Subject, number]> {
    for (const shard of this.#shards) yield* shard.entries()
  }

  clear(): void {
    for (const shard of this.#shards) shard.clear()
  }

  // Address subjects are numbers, spread by their low bits; text ones (few) share the first shard.
  #shardOf(subject: Subject): Generations {
    return this.#shards[typeof subject === 'number' ? subject & this.#mask : 0]!
  }
}

/** One shard: the recent and the older generation. */
class Generations {
  #recent = new Map<Subject, number>()
  #older = new Map<Subject, number>()

  constructor(
    readonly generation: number,
    readonly keep: (value: number) => boolean,
  ) {}

  get(subject: Subject): number | undefined {
    return this.#recent.get(subject) ?? this.#older.get(subject)
  }

  set(subject: Subject, value: number): void {
    if (this.#older.size !== 0) this.#older.delete(subject)
    if (!this.#recent.has(subject) && this.#recent.size >= this.generation) this.#rotate()
    this.#recent.set(subject, value)
  }

  get size(): number {
    return this.#recent.size + this.#older.size
  }

  *entries(): IterableIterator<[Subject, number]> {
    const recent = this.#recent
    yield* this.#older
    yield* recent
  }

  clear(): void {
    this.#recent = new Map()
    this.#older = new Map()
  }

  #rotate(): void {
    const dropped = this.#older
    this.#older = this.#recent
    this.#recent = new Map()
    for (const [subject, value] of dropped) if (this.keep(value)) this.#recent.set(subject, value)
  }
}
