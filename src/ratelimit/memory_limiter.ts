import type { Limits } from '../keys/plans'
import { allowed, type RateDecision, refused, type Usage } from './decision'
import type { RateLimiter, Subject } from './limiter'
import { BAN_MS, DAY_MS, MINUTE_MS } from './windows'

// A subject's counters, packed into one number (exact below 2^53) so that a
// flood of distinct addresses costs one map entry each: from high to low,
// requests today (20 bits), the minute of the day they were last counted in,
// requests in that minute, and refusals in that minute (11 bits each).
const FIELD = 2 ** 11
const MAX_PACKED_DAY = 2 ** 20 - 1
interface Counters {
  usedToday: number
  minuteOfDay: number
  usedThisMinute: number
  refusedThisMinute: number
}

/** Packs counters; counts above the limits (after a plan downgrade) are clamped, which blocks exactly as before. */
function pack(c: Counters, { rpm, rpd }: Limits): number {
  const usedToday = Math.min(c.usedToday, rpd)
  const usedThisMinute = Math.min(c.usedThisMinute, rpm)
  const refusedThisMinute = Math.min(c.refusedThisMinute, rpm + 1)
  return ((usedToday * FIELD + c.minuteOfDay) * FIELD + usedThisMinute) * FIELD + refusedThisMinute
}

function unpack(value: number): Counters {
  const refusedThisMinute = value % FIELD
  let rest = (value - refusedThisMinute) / FIELD
  const usedThisMinute = rest % FIELD
  rest = (rest - usedThisMinute) / FIELD
  const minuteOfDay = rest % FIELD
  return { usedToday: (rest - minuteOfDay) / FIELD, minuteOfDay, usedThisMinute, refusedThisMinute }
}

/** Whether a subject's counters under these limits fit the packed form. */
function packable({ rpm, rpd }: Limits): boolean {
  return rpm < FIELD - 1 && rpd <= MAX_PACKED_DAY
}

/**
 * Fixed-window counters in memory, exact under any concurrency (each call
 * runs to completion). Every subject seen today has one entry holding its
 * day count and the counts of the minute it was last seen in, which restart
 * when a new minute begins; at UTC midnight the whole map is dropped, so
 * memory holds only today's subjects and there is no timer per key. A
 * request refused with 429 is not counted; once the refusals to a subject
 * within one minute outnumber its per-minute limit, it is banned for BAN_MS.
 */
export class MemoryRateLimiter implements RateLimiter {
  #day = -Infinity
  #minute = -Infinity
  // Packed counters, for limits that fit; plain objects for large custom (Enterprise) limits.
  #packed = new Map<Subject, number>()
  #wide = new Map<Subject, Counters>()
  #bannedUntil = new Map<Subject, number>()

  consume(subject: Subject, limits: Limits, now: number): RateDecision {
    this.#advanceTo(now)
    const { rpm, rpd } = limits
    // Bans are rare: most requests skip the lookup.
    const banEnd = this.#bannedUntil.size === 0 ? undefined : this.#bannedUntil.get(subject)
    if (banEnd !== undefined) {
      if (now < banEnd) return refused('key_banned', 'ban', limits, rpm, banEnd, now)
      this.#bannedUntil.delete(subject)
    }
    const minuteOfDay = this.#minute - this.#day * (DAY_MS / MINUTE_MS)
    const minuteEnd = (this.#minute + 1) * MINUTE_MS
    const dayEnd = (this.#day + 1) * DAY_MS
    const packed = packable(limits)
    const counters = this.#countersOf(subject, packed) ?? {
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
    if (packed) this.#packed.set(subject, pack(counters, limits))
    else this.#wide.set(subject, counters)
    return decision
  }

  peek(subject: Subject, _limits: Limits, now: number): Usage {
    this.#advanceTo(now)
    const banEnd = this.#bannedUntil.get(subject)
    const value = this.#packed.get(subject)
    const counters = value === undefined ? this.#wide.get(subject) : unpack(value)
    const minuteOfDay = this.#minute - this.#day * (DAY_MS / MINUTE_MS)
    return {
      usedMinute: counters?.minuteOfDay === minuteOfDay ? counters.usedThisMinute : 0,
      usedDay: counters?.usedToday ?? 0,
      banEnd: banEnd !== undefined && banEnd > now ? banEnd : undefined,
    }
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

  /** How many subjects are held today and how many are banned: for tests and memory checks. */
  sizes(): { today: number; banned: number } {
    return { today: this.#packed.size + this.#wide.size, banned: this.#bannedUntil.size }
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
    }
  }
}
