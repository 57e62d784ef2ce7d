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

/** The token of an `Authorization: Bearer <token>` header; the scheme word is case-insensitive. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined
  const match = /^bearer +(\S+) *$/i.exec(header)
  return match?.[1]
}
