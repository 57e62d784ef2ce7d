import type { Awaitable } from '../awaitable'
import type { Limits } from '../keys/plans'

/** Length of the short window: the clock minute. */
export const MINUTE_MS = 60_000
/** Length of the long window: the UTC day (epoch milliseconds count UTC days exactly). */
export const DAY_MS = 86_400_000
/** How long a subject that keeps hammering after 429s is refused outright. */
export const BAN_MS = 15 * MINUTE_MS
/** BAN_MS in words, for messages and documents. */
export const BAN_DURATION_TEXT = `${BAN_MS / MINUTE_MS} minutes`

/** Who is counted: a key's id, or a client address (an IPv4 as a negative number, anything else as text). */
export type Subject = number | string

/** Why a request was refused: over a limit, banned, or a shared limiter that cannot be asked (and must not let it pass). */
export type RefusalCode = 'rate_limit_exceeded' | 'key_banned' | 'rate_limiter_unavailable'

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
 * Counts requests per subject against a per-minute and a per-day limit.
 * `now` is passed in: implementations decide by it, never by a clock of
 * their own (the Redis one paces its retries by one, nothing else). An
 * in-memory one answers at once; a shared one may answer later.
 */
export interface RateLimiter {
  consume(subject: Subject, limits: Limits, now: number): Awaitable<RateDecision>
  /** For `/health`; a limiter without it is always `ok`. */
  health?(): Awaitable<LimiterHealth>
  /** Releases a connection, if the limiter holds one. */
  close?(): void
}

/**
 * `ok`: counting as designed. `degraded`: a shared limiter's server is
 * unreachable and requests go on, counted per instance. `down`: it is
 * unreachable and requests are refused.
 */
export type LimiterHealth = 'ok' | 'degraded' | 'down'

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
      if (now < banEnd) return refused('key_banned', 'ban', rpm, banEnd, now)
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
        decision = refused('key_banned', 'ban', rpm, now + BAN_MS, now)
      } else {
        // The day outlasts the minute, so when the day is spent it is what blocks.
        decision =
          counters.usedToday >= rpd
            ? refused('rate_limit_exceeded', 'day', rpd, dayEnd, now)
            : refused('rate_limit_exceeded', 'minute', rpm, minuteEnd, now)
      }
    } else {
      counters.usedThisMinute++
      counters.usedToday++
      decision = allowed(counters.usedThisMinute, counters.usedToday, limits, minuteEnd, dayEnd)
    }
    if (packed) this.#packed.set(subject, pack(counters, limits))
    else this.#wide.set(subject, counters)
    return decision
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

/**
 * The decision for a request that was counted: `usedMinute` and `usedDay`
 * include it; the headers describe the window with fewer requests left.
 */
export function allowed(
  usedMinute: number,
  usedDay: number,
  { rpm, rpd }: Limits,
  minuteEnd: number,
  dayEnd: number,
): RateDecision {
  const leftMinute = rpm - usedMinute
  const leftDay = rpd - usedDay
  return leftDay < leftMinute
    ? { refusal: undefined, window: 'day', limit: rpd, remaining: leftDay, reset: dayEnd / 1000, retryAfter: 0 }
    : {
        refusal: undefined,
        window: 'minute',
        limit: rpm,
        remaining: leftMinute,
        reset: minuteEnd / 1000,
        retryAfter: 0,
      }
}

/** The decision for a refused request: nothing remains until `end` (epoch ms) of the blocking window or ban. */
export function refused(
  refusal: RefusalCode,
  window: RateDecision['window'],
  limit: number,
  end: number,
  now: number,
): RateDecision {
  return {
    refusal,
    window,
    limit,
    remaining: 0,
    reset: Math.ceil(end / 1000),
    retryAfter: Math.max(1, Math.ceil((end - now) / 1000)),
  }
}

/**
 * The decision while a shared limiter cannot be asked and refuses rather than
 * guess: nothing may be spent until it answers, tried again in a second.
 */
export function limiterUnavailable({ rpm }: Limits, now: number): RateDecision {
  return {
    refusal: 'rate_limiter_unavailable',
    window: 'minute',
    limit: rpm,
    remaining: 0,
    reset: Math.ceil(now / 1000) + 1,
    retryAfter: 1,
  }
}
