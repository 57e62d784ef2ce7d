/**
 * The pattern that refuses strings made only of blanks: white space, and the
 * characters that show nothing though JavaScript's `\\s` does not count them
 * (zero-width space, joiners, word joiner, Mongolian vowel separator, the
 * Hangul fillers, the byte-order mark).
 */
export const NOT_BLANK = '[^\\s\\u180E\\u200B-\\u200D\\u2060\\u3164\\u115F\\u1160\\uFEFF]'
/** The pattern that accepts only printable ASCII, space included. */
export const PRINTABLE_ASCII = '^[\\x20-\\x7E]+$'
