import { HttpError } from '../http/errors'
import { containsApiKey } from '../key_shape'
import { IDEMPOTENCY_KEY_REUSED, type IdempotencyClaim } from './idempotency'

const IDEMPOTENCY_KEY_IS_SECRET =
  '"Idempotency-Key" looks like an API key, which must never be sent there (it is stored); send a random value such as a UUID'

/**
 * The claim a create makes with its `Idempotency-Key` header (none without
 * one): the calling key's, for the body `requestHash` identifies. A value
 * shaped like an API key is refused (400): it would be stored for 24 hours,
 * and must not be echoed back either.
 */
export function claimOf(
  key: string | undefined,
  apiKeyId: number | undefined,
  requestHash: () => string,
  now: number,
): IdempotencyClaim | undefined {
  if (key === undefined || apiKeyId === undefined) return undefined
  if (containsApiKey(key))
    throw new HttpError('invalid_request', IDEMPOTENCY_KEY_IS_SECRET, { param: 'Idempotency-Key' })
  return { apiKeyId, key, requestHash: requestHash(), now }
}

/** The 422 of an Idempotency-Key that comes back with another body (createPet and placeOrder alike). */
export function idempotencyKeyReused(): HttpError {
  return new HttpError('idempotency_key_reused', IDEMPOTENCY_KEY_REUSED, { param: 'Idempotency-Key' })
}
