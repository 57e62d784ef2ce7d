import { DAY_MS, MINUTE_MS } from '../time'

/** How long a subject that keeps hammering after 429s is refused outright. */
export const BAN_MS = 15 * MINUTE_MS
/** BAN_MS in words, for messages and documents. */
export const BAN_DURATION_TEXT = `${BAN_MS / MINUTE_MS} minutes`

/**
 * The clock minute and the UTC day that `now` falls in: their numbers since
 * the epoch (which name a window's keys in Redis) and their ends (epoch ms).
 */
export function windowsAt(now: number): { minute: number; day: number; minuteEnd: number; dayEnd: number } {
  const minute = Math.floor(now / MINUTE_MS)
  const day = Math.floor(now / DAY_MS)
  return { minute, day, minuteEnd: (minute + 1) * MINUTE_MS, dayEnd: (day + 1) * DAY_MS }
}
