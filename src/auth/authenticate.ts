import { isWellFormedApiKey } from '../key_shape'
import { bearerToken } from '../keys/api_key'
import type { ApiKey, KeyStore } from '../keys/store'
import type { KnownCredentials } from './known_credentials'

/**
 * The unrevoked key an `Authorization` header carries (expired or not: see
 * `hasExpired`), or undefined when it is missing, malformed, unknown or
 * revoked. The secret is only ever hashed and looked up, so no comparison of
 * secrets can leak timing; `known` saves parsing and hashing a header seen before.
 */
export function authenticate(
  authorization: string | null,
  keys: KeyStore,
  known: KnownCredentials,
): ApiKey | undefined {
  const hash = known.hashOf(authorization)
  if (hash === undefined) return undefined
  const key = keys.findActive(hash)
  if (key !== undefined) known.remember(authorization as string, hash)
  return key
}

/** Whether `key` has expired at `now` (epoch ms): from its `expiresAt` on, it is refused. */
export function hasExpired(key: ApiKey, now: number): boolean {
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now
}

/**
 * Why this header was refused, in words for the 401 body: `expired` when it
 * carried a key that has expired. Never echoes the token, nor says which key.
 */
export function refusalReason(authorization: string | null, expired = false): string {
  if (authorization === null) return 'Missing API key: send "Authorization: Bearer <key>"'
  const token = bearerToken(authorization)
  if (token === undefined) return 'The Authorization header must be "Bearer <key>"'
  if (!isWellFormedApiKey(token)) return 'The bearer token is not an Animal Store API key'
  if (expired) return 'The API key has expired; ask for a new one'
  return 'The API key is unknown or revoked'
}

/**
 * The RFC 6750 §3.1 error code of a refused header: `invalid_token` when a
 * bearer token was presented (malformed, unknown, revoked or expired), `invalid_request`
 * when the Bearer scheme came without exactly one token, and none when there
 * were no credentials or another scheme (the client may not know it needs a key).
 */
export function bearerError(authorization: string | null): 'invalid_token' | 'invalid_request' | undefined {
  if (authorization === null || !/^bearer(?: |$)/i.test(authorization)) return undefined
  return bearerToken(authorization) === undefined ? 'invalid_request' : 'invalid_token'
}
