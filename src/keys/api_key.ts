import { KEY_PREFIX } from '../key_shape'

const KEY_BYTES = 32

/** A new secret key: the prefix and 32 random bytes, base64url. */
export function generateApiKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_BYTES))
  return KEY_PREFIX + Buffer.from(bytes).toString('base64url')
}

/** The SHA-256 of a key, hex: the only form a key is stored or looked up in. */
export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, 'hex')
}

/** The token of an `Authorization: Bearer <token>` header; the scheme word is case-insensitive. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined
  const match = /^bearer +(\S+) *$/i.exec(header)
  return match?.[1]
}
