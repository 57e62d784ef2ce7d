/** Times and durations as an operator types them on the command line; each parser throws a RangeError that says what it takes. */

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const
const DURATION = /^(?:\d{1,9}[smhdw])+$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
// A timestamp must say its zone: Z or an offset.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/
/** The latest time accepted: past it, a date is no longer a reasonable expiry (and JavaScript's dates end in 275760). */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** A duration such as `90d`, `12h`, `30m`, `45s`, `2w` or `1d12h`, or `0`, in milliseconds. */
export function parseDuration(text: string): number {
  if (text === '0') return 0
  if (!DURATION.test(text))
    throw new RangeError(`"${text}" is not a duration: give a number and a unit (s, m, h, d, w), like 24h, 30m or 90d`)
  let total = 0
  for (const [, count, unit] of text.matchAll(/(\d+)([smhdw])/g))
    total += Number(count) * UNIT_MS[unit as keyof typeof UNIT_MS]
  return total
}

/**
 * When something ends, from `now` (epoch ms): a duration from now, a UTC
 * date (its start, 00:00 UTC) or a timestamp with its zone. Refused when it
 * is not after `now`.
 */
export function parseExpiry(text: string, now: number): number {
  const at = DURATION.test(text) ? now + parseDuration(text) : parseInstant(text)
  if (at > LATEST) throw new RangeError(`"${text}" is too far ahead: the latest expiry is the end of 9999`)
  if (at <= now) throw new RangeError(`"${text}" is in the past; an expiry must be later than now`)
  return at
}

function parseInstant(text: string): number {
  const date = DATE.exec(text) ?? TIMESTAMP.exec(text)
  const at = date === null ? Number.NaN : Date.parse(DATE.test(text) ? `${text}T00:00:00Z` : text)
  // Date.parse rolls 2027-02-30 over to March: the calendar date must come back as written.
  const [, year, month, day] = date ?? []
  const calendar = Number.isNaN(at) ? undefined : new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (
    calendar === undefined ||
    calendar.getUTCFullYear() !== Number(year) ||
    calendar.getUTCMonth() !== Number(month) - 1 ||
    calendar.getUTCDate() !== Number(day)
  )
    throw new RangeError(
      `"${text}" is not a time: give a duration (90d, 12h, 30m), a UTC date (2027-01-31) or a timestamp with its zone (2027-01-31T12:00:00Z)`,
    )
  return at
}
