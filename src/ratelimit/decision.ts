import type { Limits } from '../keys/plans'
import type { QuotaStatus, WindowQuota } from './schema'
import { windowsAt } from './windows'

/** Why a request was refused: over a limit, banned, or a shared limiter that cannot be asked (and must not let it pass). */
export type RefusalCode = 'rate_limit_exceeded' | 'key_banned' | 'rate_limiter_unavailable'

/**
 * What the limiter decided about one request, and the window the rate-limit
 * headers describe: the one with fewer requests remaining (the minute on a
 * tie); for a refusal, the window or ban that blocks longest.
 */
export interface RateDecision {
  /** Undefined when the request may go on. */
  refusal: RefusalCode | undefined
  /** The window the other fields describe; a ban is described by the minute's limit. */
  window: 'minute' | 'day' | 'ban'
  limit: number
  /** Requests counted in the described window (this one included); a ban has used its limit. */
  used: number
  remaining: number
  /** Unix seconds at which the described window (or ban) ends. */
  reset: number
  /** Whole seconds until the described window (or ban) ends, rounded up, at least 1. */
  resetAfter: number
  /** Whole seconds until a retry can succeed, at least 1; 0 when allowed. */
  retryAfter: number
  /** Both windows' limits, as counted against. */
  limits: Limits
  /**
   * The shared store's version, read in the same round trip by a shared
   * limiter that let the request through (pets/shared_page_cache.ts); undefined otherwise.
   */
  storeVersion?: string
}

/** What a subject has used in the current windows and until when it is banned, read without counting. */
export interface Usage {
  usedMinute: number
  usedDay: number
  /** Epoch ms at which a ban ends; undefined when there is none. */
  banEnd: number | undefined
  /** As RateDecision's. */
  storeVersion?: string
}

/**
 * The decision for a request that was counted: `usedMinute` and `usedDay`
 * include it; the headers describe the window with fewer requests left.
 */
export function allowed(
  usedMinute: number,
  usedDay: number,
  limits: Limits,
  minuteEnd: number,
  dayEnd: number,
  now: number,
): RateDecision {
  const { rpm, rpd } = limits
  const leftDay = rpd - usedDay
  const day = leftDay < rpm - usedMinute
  const end = day ? dayEnd : minuteEnd
  return {
    refusal: undefined,
    window: day ? 'day' : 'minute',
    limit: day ? rpd : rpm,
    used: day ? usedDay : usedMinute,
    remaining: day ? leftDay : rpm - usedMinute,
    reset: end / 1000,
    resetAfter: Math.ceil((end - now) / 1000),
    retryAfter: 0,
    limits,
  }
}

/**
 * The decision for a refused request: nothing remains until `end` (epoch ms)
 * of the blocking window or ban; `used` is what that window counted.
 */
export function refused(
  refusal: RefusalCode,
  window: RateDecision['window'],
  limits: Limits,
  used: number,
  end: number,
  now: number,
): RateDecision {
  const limit = window === 'day' ? limits.rpd : limits.rpm
  const resetAfter = Math.max(1, Math.ceil((end - now) / 1000))
  return {
    refusal,
    window,
    limit,
    used: Math.min(used, limit),
    remaining: 0,
    reset: Math.ceil(end / 1000),
    resetAfter,
    retryAfter: resetAfter,
    limits,
  }
}

/**
 * The decision while a shared limiter cannot be asked and refuses rather than
 * guess: nothing may be spent until it answers, tried again in a second.
 */
export function limiterUnavailable(limits: Limits, now: number): RateDecision {
  return {
    refusal: 'rate_limiter_unavailable',
    window: 'minute',
    limit: limits.rpm,
    used: limits.rpm,
    remaining: 0,
    reset: Math.ceil(now / 1000) + 1,
    resetAfter: 1,
    retryAfter: 1,
    limits,
  }
}

/**
 * The headers' view of a subject that is looked at, not counted: the ban
 * while there is one, else the window that blocks when one is used up, else
 * the window with fewer requests left. Never a refusal.
 */
export function describeUsage({ usedMinute, usedDay, banEnd }: Usage, limits: Limits, now: number): RateDecision {
  const { minuteEnd, dayEnd } = windowsAt(now)
  const looked = (decision: RateDecision): RateDecision => ({ ...decision, refusal: undefined, retryAfter: 0 })
  if (banEnd !== undefined && banEnd > now) return looked(refused('key_banned', 'ban', limits, limits.rpm, banEnd, now))
  if (usedDay >= limits.rpd) return looked(refused('rate_limit_exceeded', 'day', limits, usedDay, dayEnd, now))
  if (usedMinute >= limits.rpm)
    return looked(refused('rate_limit_exceeded', 'minute', limits, usedMinute, minuteEnd, now))
  return allowed(usedMinute, usedDay, limits, minuteEnd, dayEnd, now)
}

/** Both windows and the ban of a subject, for a client to read. */
export function quotaStatus({ usedMinute, usedDay, banEnd }: Usage, { rpm, rpd }: Limits, now: number): QuotaStatus {
  const { minuteEnd, dayEnd } = windowsAt(now)
  const window = (limit: number, used: number, end: number): WindowQuota => {
    const counted = Math.min(used, limit)
    return { limit, used: counted, remaining: limit - counted, reset: end / 1000 }
  }
  return {
    minute: window(rpm, usedMinute, minuteEnd),
    day: window(rpd, usedDay, dayEnd),
    bannedUntil: banEnd !== undefined && banEnd > now ? Math.ceil(banEnd / 1000) : null,
  }
}
