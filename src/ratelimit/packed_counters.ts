import type { Limits } from '../keys/plans'

// A subject's counters, packed into one number (exact below 2^53) so that a
// flood of distinct addresses costs one map entry each: from high to low,
// requests today (20 bits), the minute of the day they were last counted in,
// requests in that minute, and refusals in that minute (11 bits each).
const FIELD = 2 ** 11
const MAX_PACKED_DAY = 2 ** 20 - 1
/** What the in-memory limiter counts of one subject, in today and in the minute it was last seen in. */
export interface Counters {
  usedToday: number
  minuteOfDay: number
  usedThisMinute: number
  refusedThisMinute: number
}

/** Packs counters; counts above the limits (after a plan downgrade) are clamped, which blocks exactly as before. */
export function pack(c: Counters, { rpm, rpd }: Limits): number {
  const usedToday = Math.min(c.usedToday, rpd)
  const usedThisMinute = Math.min(c.usedThisMinute, rpm)
  const refusedThisMinute = Math.min(c.refusedThisMinute, rpm + 1)
  return ((usedToday * FIELD + c.minuteOfDay) * FIELD + usedThisMinute) * FIELD + refusedThisMinute
}

/** The counters a packed number holds. */
export function unpack(value: number): Counters {
  const refusedThisMinute = value % FIELD
  let rest = (value - refusedThisMinute) / FIELD
  const usedThisMinute = rest % FIELD
  rest = (rest - usedThisMinute) / FIELD
  const minuteOfDay = rest % FIELD
  return { usedToday: (rest - minuteOfDay) / FIELD, minuteOfDay, usedThisMinute, refusedThisMinute }
}

/** Whether a subject's counters under these limits fit the packed form. */
export function packable({ rpm, rpd }: Limits): boolean {
  return rpm < FIELD - 1 && rpd <= MAX_PACKED_DAY
}

/**
 * Counters of one subject held by two processes (or two snapshots), as one:
 * the day's counts added, and the minute's when both are of the same minute,
 * else the later minute's.
 */
export function mergeCounters(a: Counters, b: Counters): Counters {
  const usedToday = a.usedToday + b.usedToday
  if (a.minuteOfDay !== b.minuteOfDay) return { ...(a.minuteOfDay > b.minuteOfDay ? a : b), usedToday }
  return {
    usedToday,
    minuteOfDay: a.minuteOfDay,
    usedThisMinute: a.usedThisMinute + b.usedThisMinute,
    refusedThisMinute: a.refusedThisMinute + b.refusedThisMinute,
  }
}

/** Two packed values of one subject merged (mergeCounters), each count held within its field. */
export function mergePacked(a: number, b: number): number {
  const c = mergeCounters(unpack(a), unpack(b))
  const usedToday = Math.min(c.usedToday, MAX_PACKED_DAY)
  const usedThisMinute = Math.min(c.usedThisMinute, FIELD - 1)
  const refusedThisMinute = Math.min(c.refusedThisMinute, FIELD - 1)
  return ((usedToday * FIELD + c.minuteOfDay) * FIELD + usedThisMinute) * FIELD + refusedThisMinute
}
