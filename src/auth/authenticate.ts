import { bearerToken, hashApiKey, isWellFormedApiKey } from '../keys/api_key'
import type { ApiKey, KeyStore } from '../keys/store'

/**
 * The active key an `Authorization` header carries, or undefined when it is
 * missing, malformed, unknown or revoked. The secret is only ever hashed and
 * looked up, so no comparison of secrets can leak timing.
 */
export function authenticate(authorization: string | null, keys: KeyStore): ApiKey | undefined {
  const token = bearerToken(authorization)
  if (token === undefined || !isWellFormedApiKey(token)) return undefined
  return keys.findActive(hashApiKey(token))
}

/** Why `authenticate` refused this header, in words for the 401 body. Never echoes the token. */
export function refusalReason(authorization: string | null): string {
  if (authorization === null) return 'Missing API key: send "Authorization: Bearer <key>"'
  const token = bearerToken(authorization)
  if (token === undefined) return 'The Authorization header must be "Bearer <key>"'
  if (!isWellFormedApiKey(token)) return 'The bearer token is not an Animal Store API key'
  return 'The API key is unknown or revoked'
}
