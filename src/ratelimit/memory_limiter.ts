import { type Limits, PLAN_LIMITS } from '../keys/plans'
import { DAY_MS, MINUTE_MS } from '../time'
import { allowed, type RateDecision, refused, type Usage } from './decision'
import type { RateLimiter, Subject } from './limiter'
import { type Counters, mergeCounters, mergePacked, pack, packable, unpack } from './packed_counters'
import { RecentSubjects } from './recent_subjects'
import type { LimiterSnapshot, SnapshotExtra, SnapshotSource } from './snapshot'
import { isAnonymousSubject, isKeySubject } from './subject'
import { BAN_MS } from './windows'

/** What a MemoryRateLimiter is built with. */
export interface MemoryRateLimiterOptions {
  /** The most callers without a key (address subjects) held at once; the least recently seen go first. */
  anonymousMax?: number
}

/** ANON_SUBJECTS_MAX's default (what a million addresses hold: bench/README.md, "The limiter's memory"). */
export const DEFAULT_ANONYMOUS_MAX = 1_000_000

/**
 * Fixed-window counters in memory, exact under any concurrency (each call
 * runs to completion). Every subject seen today has one entry holding its
 * day count and the counts of the minute it was last seen in, which restart
 * when a new minute begins; at UTC midnight the whole map is dropped, so
 * memory holds only today's subjects and there is no timer per key. A
 * request refused with 429 is not counted; once the refusals to a subject
 * within one minute outnumber its per-minute limit, it is banned for BAN_MS.
 *
 * Callers without a key (address subjects, all on the Free plan's limits)
 * are held apart, about `anonymousMax` of them (RecentSubjects): beyond
 * that the least recently seen are forgotten, unless blocked (their minute
 * or day used up), so a caller cannot shed a refusal by flooding; a ban
 * lives in its own map, never forgotten before it ends.
 */
export class MemoryRateLimiter implements RateLimiter, SnapshotSource {
  readonly answersAtOnce = true
  #day = -Infinity
  #minute = -Infinity
  // Packed counters, for limits that fit; plain objects for large custom (Enterprise) limits.
  #packed = new Map<Subject, number>()
  #wide = new Map<Subject, Counters>()
  // Packed counters of address subjects, the least recently seen forgotten first.
  #anonymous: RecentSubjects
  #bannedUntil = new Map<Subject, number>()

  constructor({ anonymousMax = DEFAULT_ANONYMOUS_MAX }: MemoryRateLimiterOptions = {}) {
    // Every address is on the Free plan's limits: a caller that used up its minute or its day is blocked, and kept.
    const { rpm, rpd } = PLAN_LIMITS.free
    this.#anonymous = new RecentSubjects(anonymousMax, (value) => {
      const counters = unpack(value)
      return (
        counters.usedToday >= rpd || (counters.minuteOfDay === this.#minuteOfDay() && counters.usedThisMinute >= rpm)
      )
    })
  }

  #changes = 0

  /** Grows with every change, so the snapshot keeper skips an unchanged limiter. */
  get changes(): number {
    return this.#changes
  }

  consume(subject: Subject, limits: Limits, now: number): RateDecision {
    this.#advanceTo(now)
    this.#changes++
    const { rpm, rpd } = limits
    // Bans are rare: most requests skip the lookup.
    const banEnd = this.#bannedUntil.size === 0 ? undefined : this.#bannedUntil.get(subject)
    if (banEnd !== undefined) {
      if (now < banEnd) return refused('key_banned', 'ban', limits, rpm, banEnd, now)
      this.#bannedUntil.delete(subject)
    }
    const minuteOfDay = this.#minuteOfDay()
    const minuteEnd = (this.#minute + 1) * MINUTE_MS
    const dayEnd = (this.#day + 1) * DAY_MS
    const anonymous = isAnonymousSubject(subject, limits)
    const counters = this.#countersFor(subject, limits, anonymous) ?? {
      usedToday: 0,
      minuteOfDay,
      usedThisMinute: 0,
      refusedThisMinute: 0,
    }
    if (counters.minuteOfDay !== minuteOfDay) {
      counters.minuteOfDay = minuteOfDay
      counters.usedThisMinute = 0
      counters.refusedThisMinute = 0
    }

    let decision: RateDecision
    if (counters.usedThisMinute >= rpm || counters.usedToday >= rpd) {
      counters.refusedThisMinute++
      if (counters.refusedThisMinute > rpm) {
        this.#bannedUntil.set(subject, now + BAN_MS)
        decision = refused('key_banned', 'ban', limits, rpm, now + BAN_MS, now)
      } else {
        // The day outlasts the minute, so when the day is spent it is what blocks.
        decision =
          counters.usedToday >= rpd
            ? refused('rate_limit_exceeded', 'day', limits, counters.usedToday, dayEnd, now)
            : refused('rate_limit_exceeded', 'minute', limits, counters.usedThisMinute, minuteEnd, now)
      }
    } else {
      counters.usedThisMinute++
      counters.usedToday++
      decision = allowed(counters.usedThisMinute, counters.usedToday, limits, minuteEnd, dayEnd, now)
    }
    this.#store(subject, counters, limits, anonymous)
    return decision
  }

  peek(subject: Subject, _limits: Limits, now: number): Usage {
    this.#advanceTo(now)
    const banEnd = this.#bannedUntil.get(subject)
    const value = this.#packed.get(subject) ?? this.#anonymous.get(subject)
    const counters = value === undefined ? this.#wide.get(subject) : unpack(value)
    const minuteOfDay = this.#minuteOfDay()
    return {
      usedMinute: counters?.minuteOfDay === minuteOfDay ? counters.usedThisMinute : 0,
      usedDay: counters?.usedToday ?? 0,
      banEnd: banEnd !== undefined && banEnd > now ? banEnd : undefined,
    }
  }

  refund(subject: Subject, limits: Limits, countedAt: number, now: number): Usage {
    this.#advanceTo(now)
    this.#changes++
    const anonymous = isAnonymousSubject(subject, limits)
    // Counted on an earlier UTC day: that day's counts are gone already.
    const counters =
      Math.floor(countedAt / DAY_MS) === this.#day ? this.#countersFor(subject, limits, anonymous) : undefined
    if (counters !== undefined) {
      if (counters.usedToday > 0) counters.usedToday--
      const countedMinute = this.#minuteOfDay() - (this.#minute - Math.floor(countedAt / MINUTE_MS))
      if (counters.minuteOfDay === countedMinute && counters.usedThisMinute > 0) counters.usedThisMinute--
      this.#store(subject, counters, limits, anonymous)
    }
    return this.peek(subject, limits, now)
  }

  reset(subject: Subject, _reset: string, now: number): void {
    this.#advanceTo(now)
    this.#changes++
    this.#bannedUntil.delete(subject)
    this.#packed.delete(subject)
    this.#wide.delete(subject)
  }

  // One lookup in the map the limits select; only on a miss, and only when the
  // other map holds anything, is a subject looked for (and moved) there, as
  // after a plan change that crosses the packable limits.
  #countersOf(subject: Subject, packed: boolean): Counters | undefined {
    if (packed) {
      const value = this.#packed.get(subject)
      if (value !== undefined) return unpack(value)
      const wide = this.#wide.size === 0 ? undefined : this.#wide.get(subject)
      if (wide !== undefined) this.#wide.delete(subject)
      return wide
    }
    const wide = this.#wide.get(subject)
    if (wide !== undefined) return wide
    const value = this.#packed.size === 0 ? undefined : this.#packed.get(subject)
    if (value === undefined) return undefined
    this.#packed.delete(subject)
    return unpack(value)
  }

  #countersFor(subject: Subject, limits: Limits, anonymous: boolean): Counters | undefined {
    if (!anonymous) return this.#countersOf(subject, packable(limits))
    const value = this.#anonymous.get(subject)
    return value === undefined ? undefined : unpack(value)
  }

  #store(subject: Subject, counters: Counters, limits: Limits, anonymous: boolean): void {
    if (!anonymous) {
      if (packable(limits)) this.#packed.set(subject, pack(counters, limits))
      else this.#wide.set(subject, counters)
      return
    }
    this.#anonymous.set(subject, pack(counters, limits))
  }

  /** Everything held for today, and the bans, in one part: what `restore` reads back after a restart. */
  snapshot(now: number): LimiterSnapshot {
    return this.snapshotParts(now).next().value as LimiterSnapshot
  }

  /**
   * Everything held for today, and the bans, in parts of at most `partSize`
   * subjects, keys first; the first part carries the bans and the wide
   * counters. Each part is built when asked for, so a writer can store one,
   * let the event loop run, and ask for the next: counts that change
   * meanwhile are read as they are then, and subjects first seen after the
   * parts began are left to the next snapshot.
   */
  *snapshotParts(now: number, partSize = Number.POSITIVE_INFINITY): Generator<LimiterSnapshot, void> {
    this.#advanceTo(now)
    const day = this.#day
    const capacity = Math.max(1, Math.min(partSize, this.#packed.size + this.#anonymous.size))
    const subjects = this.#heldSubjects()
    let next = subjects.next()
    let first = true
    do {
      const pairs = new Float64Array(2 * capacity)
      let filled = 0
      const text: [string, number][] = []
      for (; !next.done && filled < pairs.length; next = subjects.next()) {
        const [subject, value] = next.value
        if (typeof subject !== 'number') text.push([subject, value])
        else {
          pairs[filled++] = subject
          pairs[filled++] = value
        }
      }
      const wide = first
        ? [...this.#wide].map(([subject, c]): SnapshotExtra['wide'][number] => [
            subject,
            c.usedToday,
            c.minuteOfDay,
            c.usedThisMinute,
            c.refusedThisMinute,
          ])
        : []
      yield {
        savedAt: now,
        day,
        counters: pairs.subarray(0, filled),
        extra: { wide, text, bans: first ? [...this.#bannedUntil] : [] },
      }
      first = false
    } while (!next.done)
  }

  /** Every packed subject held: keys first, then callers without a key (the maps as they are now). */
  *#heldSubjects(): Generator<[Subject, number]> {
    const keys = this.#packed
    yield* keys
    yield* this.#anonymous.entries()
  }

  /**
   * Adds a snapshot (or one part of it) to what is held: its counts if they
   * are of today (UTC), added to any already held for the same subject, as
   * when a start reads back what several stopped processes counted; its bans
   * until they end.
   */
  restore({ day, counters, extra }: LimiterSnapshot, now: number): void {
    this.#advanceTo(now)
    this.#changes++
    for (const [subject, end] of extra.bans)
      if (end > now && end > (this.#bannedUntil.get(subject) ?? 0)) this.#bannedUntil.set(subject, end)
    if (day !== this.#day) return
    const add = (subject: Subject, value: number) => {
      const held = isKeySubject(subject) ? this.#packed : this.#anonymous
      const was = held.get(subject)
      held.set(subject, was === undefined ? value : mergePacked(was, value))
    }
    for (let i = 0; i + 1 < counters.length; i += 2) add(counters[i]!, counters[i + 1]!)
    for (const [subject, value] of extra.text) add(subject, value)
    for (const [subject, usedToday, minuteOfDay, usedThisMinute, refusedThisMinute] of extra.wide) {
      const saved = { usedToday, minuteOfDay, usedThisMinute, refusedThisMinute }
      const was = this.#wide.get(subject)
      this.#wide.set(subject, was === undefined ? saved : mergeCounters(was, saved))
    }
  }

  /** How many subjects are held today (callers without a key among them) and how many are banned. */
  sizes(): { today: number; anonymous: number; banned: number } {
    return {
      today: this.#packed.size + this.#wide.size + this.#anonymous.size,
      anonymous: this.#anonymous.size,
      banned: this.#bannedUntil.size,
    }
  }

  /** The current minute, counted from the start of the current UTC day. */
  #minuteOfDay(): number {
    return this.#minute - this.#day * (DAY_MS / MINUTE_MS)
  }

  // The sweeps: a new minute drops ended bans; a new UTC day drops every
  // counter. A clock that steps back stays in the current window.
  #advanceTo(now: number): void {
    const minute = Math.floor(now / MINUTE_MS)
    if (minute <= this.#minute) return
    this.#minute = minute
    for (const [subject, end] of this.#bannedUntil) if (end <= now) this.#bannedUntil.delete(subject)
    const day = Math.floor(now / DAY_MS)
    if (day > this.#day) {
      this.#day = day
      this.#packed = new Map()
      this.#wide = new Map()
      this.#anonymous.clear()
    }
  }
}
