/** Every key starts with this, so a leaked one is recognisable in logs and scanners. */
export const KEY_PREFIX = 'ask_'

const KEY_BYTES = 32
// 32 bytes are 43 base64url characters without padding.
const WELL_FORMED = /^ask_[A-Za-z0-9_-]{43}$/

/** A new secret key: the prefix and 32 random bytes, base64url. */
export function generateApiKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_BYTES))
  return KEY_PREFIX + Buffer.from(bytes).toString('base64url')
}

/** The SHA-256 of a key, hex: the only form a key is stored or looked up in. */
export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, 'hex')
}

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

/** The token of an `Authorization: Bearer <token>` header; the scheme word is case-insensitive. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined
  const match = /^bearer +(\S+) *$/i.exec(header)
  return match?.[1]
}
