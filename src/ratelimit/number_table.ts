/**
 * A map from numbers (never 0, which marks an empty slot) to numbers, in two
 * Float64Arrays with linear probing: no object per entry, so a million
 * entries cost the garbage collector nothing to mark (as Map entries, a full
 * collection spent 9 to 16 ms on them), 16 bytes a slot, 1/maxLoad to
 * 2/maxLoad slots an entry. It doubles when more than `maxLoad` of its
 * slots would be taken (tables filled alike can be given different loads,
 * so that they do not all grow at the same moment); a removal shifts the
 * entries after it back, so no slot is ever a tombstone.
 */
export class NumberTable {
  #keys: Float64Array
  #values: Float64Array
  #mask: number
  #shift: number
  #size = 0
  #most: number
  // Each table places keys its own way: entries given in another table's slot order (a snapshot read back)
  // then arrive in no particular order here. In the same order, they would pile up into one run of slots
  // while this table is smaller, each probing the whole run (a part read back took 39 ms instead of 2).
  #seed = (Math.random() * 4294967296) | 0

  /** `slots` a power of two; `maxLoad` between 0.5 (the quickest lookups) and 0.75. */
  constructor(
    slots = 16,
    readonly maxLoad = 0.5,
  ) {
    this.#keys = new Float64Array(slots)
    this.#values = new Float64Array(slots)
    this.#mask = slots - 1
    this.#shift = 32 - Math.log2(slots)
    this.#most = Math.floor(slots * maxLoad)
  }

  get size(): number {
    return this.#size
  }

  get(key: number): number | undefined {
    const keys = this.#keys
    for (let slot = this.#home(key); ; slot = (slot + 1) & this.#mask) {
      const held = keys[slot]!
      if (held === key) return this.#values[slot]
      if (held === 0) return undefined
    }
  }

  has(key: number): boolean {
    return this.get(key) !== undefined
  }

  set(key: number, value: number): void {
    if (key === 0) throw new RangeError('NumberTable keys are never 0 (it marks a free slot)')
    if (this.#size >= this.#most) this.#grow()
    const keys = this.#keys
    let slot = this.#home(key)
    for (; keys[slot] !== 0; slot = (slot + 1) & this.#mask) {
      if (keys[slot] === key) {
        this.#values[slot] = value
        return
      }
    }
    keys[slot] = key
    this.#values[slot] = value
    this.#size++
  }

  delete(key: number): boolean {
    const keys = this.#keys
    const values = this.#values
    const mask = this.#mask
    let hole = this.#home(key)
    for (; keys[hole] !== key; hole = (hole + 1) & mask) if (keys[hole] === 0) return false
    // Each entry after the hole that may sit there (the hole lies between its home and its slot) moves back.
    for (let slot = (hole + 1) & mask; keys[slot] !== 0; slot = (slot + 1) & mask) {
      if (((slot - this.#home(keys[slot]!)) & mask) >= ((slot - hole) & mask)) {
        keys[hole] = keys[slot]!
        values[hole] = values[slot]!
        hole = slot
      }
    }
    keys[hole] = 0
    this.#size--
    return true
  }

  /** The number of slots, free or not: a table made with as many holds as many entries as this one without growing. */
  get slots(): number {
    return this.#keys.length
  }

  /** Calls `visit` with every entry, in slot order; the table must not change meanwhile. */
  forEach(visit: (key: number, value: number) => void): void {
    const keys = this.#keys
    const values = this.#values
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== 0) visit(keys[slot]!, values[slot]!)
  }

  /** The same entries in a table of its own: later changes to either are not seen by the other. */
  copy(): NumberTable {
    const copy = new NumberTable(1, this.maxLoad)
    copy.#seed = this.#seed
    copy.#keys = this.#keys.slice()
    copy.#values = this.#values.slice()
    copy.#mask = this.#mask
    copy.#shift = this.#shift
    copy.#size = this.#size
    copy.#most = this.#most
    return copy
  }

  /**
   * Every entry, in slot order. A change while it runs may move an entry it
   * has not reached behind it, or one it gave ahead of it: iterate a copy()
   * of a table that changes meanwhile.
   */
  *entries(): IterableIterator<[number, number]> {
    const keys = this.#keys
    const values = this.#values
    for (let slot = 0; slot < keys.length; slot++) if (keys[slot] !== 0) yield [keys[slot]!, values[slot]!]
  }

  // Both halves of the number, mixed with the table's seed (murmur3's finalizer), the top bits taken.
  #home(key: number): number {
    let hash = (key | 0) ^ this.#seed ^ Math.imul((key / 4294967296) | 0, 0x9e3779b1)
    hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
    hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
    return (hash ^ (hash >>> 16)) >>> this.#shift
  }

  #grow(): void {
    const keys = this.#keys
    const values = this.#values
    const grownKeys = new Float64Array(2 * keys.length)
    const grownValues = new Float64Array(2 * keys.length)
    this.#keys = grownKeys
    this.#values = grownValues
    const mask = 2 * keys.length - 1
    this.#mask = mask
    this.#shift--
    this.#most = Math.floor(grownKeys.length * this.maxLoad)
    // Every key is new to the grown table: each goes to the first free slot from its home.
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot]!
      if (key === 0) continue
      let to = this.#home(key)
      while (grownKeys[to] !== 0) to = (to + 1) & mask
      grownKeys[to] = key
      grownValues[to] = values[slot]!
    }
  }
}
