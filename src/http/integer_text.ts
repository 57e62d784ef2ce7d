const DIGITS = /^\d{1,16}$/

/**
 * A query or path value made only of decimal digits becomes the number it
 * spells when that is a safe integer; anything else ("1.5", "0x10", " 5",
 * "1e3", "") is returned untouched, so the integer schema refuses it.
 */
export function integerFromText(value: unknown): unknown {
  if (typeof value !== 'string' || !DIGITS.test(value)) return value
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : value
}
