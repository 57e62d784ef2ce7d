import { DAY_MS, MINUTE_MS } from '../time'

/** How long a subject that keeps hammering after 429s is refused outright. */
export const BAN_MS = 15 * MINUTE_MS
/** BAN_MS in words, for messages and documents. */
export const BAN_DURATION_TEXT = `${BAN_MS / MINUTE_MS} minutes`

/** The ends (epoch ms) of the clock minute and the UTC day that `now` falls in. */
export function windowEnds(now: number): { minuteEnd: number; dayEnd: number } {
  return {
    minuteEnd: (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS,
    dayEnd: (Math.floor(now / DAY_MS) + 1) * DAY_MS,
  }
}
