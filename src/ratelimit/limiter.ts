import type { Awaitable } from '../awaitable'
import type { Limits } from '../keys/plans'

/** Length of the short window: the clock minute. */
export const MINUTE_MS = 60_000
/** Length of the long window: the UTC day (epoch milliseconds count UTC days exactly). */
export const DAY_MS = 86_400_000
/** How long a subject that keeps hammering after 429s is refused outright. */
export const BAN_MS = 15 * MINUTE_MS

/** Why a request was refused. */
export type RefusalCode = 'rate_limit_exceeded' | 'key_banned'

/**
 * What the limiter decided about one request, and the window the
 * `X-RateLimit-*` headers describe: the one with fewer requests remaining
 * (the minute on a tie); for a refusal, the window or ban that blocks longest.
 */
export interface RateDecision {
  /** Undefined when the request may go on. */
  refusal: RefusalCode | undefined
  /** The window the other fields describe. */
  window: 'minute' | 'day' | 'ban'
  limit: number
  remaining: number
  /** Unix seconds at which the described window (or ban) ends. */
  reset: number
  /** Whole seconds until a retry can succeed, at least 1; 0 when allowed. */
  retryAfter: number
}

/**
 * Counts requests per subject (a key, or a client address) against a
 * per-minute and a per-day limit. `now` is passed in: implementations never
 * read a clock. An in-memory one answers at once; a shared one may answer later.
 */
export interface RateLimiter {
  consume(subject: string, limits: Limits, now: number): Awaitable<RateDecision>
}

/**
 * Fixed-window counters in memory: one map for the current minute, one for
 * the current UTC day. When a window ends its map is dropped whole, so memory
 * holds only the subjects seen in the current windows, with no timer per key.
 * A request refused with 429 is not counted; once the refusals to a subject
 * within one minute outnumber its per-minute limit, it is banned for 15 minutes.
 */
export class MemoryRateLimiter implements RateLimiter {
  #minute = -Infinity
  #day = -Infinity
  #usedThisMinute = new Map<string, number>()
  #refusedThisMinute = new Map<string, number>()
  #usedToday = new Map<string, number>()
  #bannedUntil = new Map<string, number>()

  consume(subject: string, { rpm, rpd }: Limits, now: number): RateDecision {
    this.#advanceTo(now)
    // Bans are rare: most requests skip the lookup.
    const banEnd = this.#bannedUntil.size === 0 ? undefined : this.#bannedUntil.get(subject)
    if (banEnd !== undefined) {
      if (now < banEnd) return refused('key_banned', 'ban', rpm, banEnd, now)
      this.#bannedUntil.delete(subject)
    }
    const minuteEnd = (this.#minute + 1) * MINUTE_MS
    const dayEnd = (this.#day + 1) * DAY_MS
    const usedMinute = this.#usedThisMinute.get(subject) ?? 0
    const usedDay = this.#usedToday.get(subject) ?? 0

    if (usedMinute >= rpm || usedDay >= rpd) {
      const refusals = (this.#refusedThisMinute.get(subject) ?? 0) + 1
      this.#refusedThisMinute.set(subject, refusals)
      if (refusals > rpm) {
        this.#bannedUntil.set(subject, now + BAN_MS)
        return refused('key_banned', 'ban', rpm, now + BAN_MS, now)
      }
      // The day outlasts the minute, so when the day is spent it is what blocks.
      return usedDay >= rpd
        ? refused('rate_limit_exceeded', 'day', rpd, dayEnd, now)
        : refused('rate_limit_exceeded', 'minute', rpm, minuteEnd, now)
    }

    this.#usedThisMinute.set(subject, usedMinute + 1)
    this.#usedToday.set(subject, usedDay + 1)
    const leftMinute = rpm - usedMinute - 1
    const leftDay = rpd - usedDay - 1
    return leftDay < leftMinute
      ? { refusal: undefined, window: 'day', limit: rpd, remaining: leftDay, reset: dayEnd / 1000, retryAfter: 0 }
      : { refusal: undefined, window: 'minute', limit: rpm, remaining: leftMinute, reset: minuteEnd / 1000, retryAfter: 0 }
  }

  /** How many subjects each window holds: for tests and memory checks. */
  sizes(): { minute: number; day: number; banned: number } {
    return { minute: this.#usedThisMinute.size, day: this.#usedToday.size, banned: this.#bannedUntil.size }
  }

  // The sweep: entering a new window drops the old window's map whole. A clock
  // that steps back stays in the current window rather than resetting counts.
  #advanceTo(now: number): void {
    const minute = Math.floor(now / MINUTE_MS)
    if (minute <= this.#minute) return
    this.#minute = minute
    this.#usedThisMinute = new Map()
    this.#refusedThisMinute = new Map()
    for (const [subject, end] of this.#bannedUntil) if (end <= now) this.#bannedUntil.delete(subject)
    const day = Math.floor(now / DAY_MS)
    if (day > this.#day) {
      this.#day = day
      this.#usedToday = new Map()
    }
  }
}

function refused(refusal: RefusalCode, window: RateDecision['window'], limit: number, end: number, now: number): RateDecision {
  return { refusal, window, limit, remaining: 0, reset: Math.ceil(end / 1000), retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) }
}
