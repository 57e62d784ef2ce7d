/**
 * What an API key looks like as text, and how key-shaped text is found and
 * blanked out. A leaf: the logger, the error bodies and the request log use
 * it without reaching into `keys/`.
 */

/** Every key starts with this, so a leaked one is recognisable in logs and scanners. */
export const KEY_PREFIX = 'ask_'

// 32 bytes are 43 base64url characters without padding.
const WELL_FORMED = /^ask_[A-Za-z0-9_-]{43}$/

/** Whether `value` has the shape of a key, so malformed tokens never reach the store. */
export function isWellFormedApiKey(value: string): boolean {
  return WELL_FORMED.test(value)
}

// Anything that starts like a key is treated as one, even when cut short or run into other text.
const KEY_LIKE = /ask_[A-Za-z0-9_-]{8,}/g

/** Whether `text` holds something shaped like a key. */
export function containsApiKey(text: string): boolean {
  return text.includes(KEY_PREFIX) && text.search(KEY_LIKE) !== -1
}

/**
 * `text` with anything shaped like a key replaced, for every message and log
 * line: a client that puts its key in a path, a parameter name or a request
 * id must not find it echoed or logged.
 */
export function redactApiKeys(text: string): string {
  return text.includes(KEY_PREFIX) ? text.replace(KEY_LIKE, 'ask_[redacted]') : text
}
