import { DEFAULT_STATUS, type NewPet, type Pet } from './schema'

/** How long a create stays replayable under its Idempotency-Key. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** The 422's message when an Idempotency-Key comes back with another body. */
export const IDEMPOTENCY_KEY_REUSED =
  'This Idempotency-Key was already used with a different body; use a new key for a new pet or order'

/** How many expired claims each new claim deletes, so the table never grows past a day of them. */
export const EXPIRED_CLAIMS_PURGED_PER_CREATE = 100

/** A create made safe to retry: who asked, under which Idempotency-Key, with which body, when. */
export interface IdempotencyClaim {
  apiKeyId: number
  key: string
  /** `bodyHash` of the request body: a retry must send the same one. */
  requestHash: string
  /** Milliseconds since the epoch; claims older than IDEMPOTENCY_TTL_MS are forgotten. */
  now: number
}

/**
 * Identifies a create body by its values, so a retry that reorders keys or
 * changes white space is still "the same body"; any other difference is not.
 */
export function bodyHash(pet: NewPet): string {
  // The create as it would be stored: a status left out is the default, so spelling the default out is the same body.
  return Bun.SHA256.hash(JSON.stringify([pet.name, pet.categoryId, pet.status ?? DEFAULT_STATUS]), 'hex')
}

/** Claims made at or before this instant (epoch ms) have expired: they replay nothing and may be deleted. */
export function expiryCutoff(claim: IdempotencyClaim): number {
  return claim.now - IDEMPOTENCY_TTL_MS
}

/** A claim as a store keeps it: the hash of the body that made it and the pet (JSON) it answered with. */
export interface StoredClaim {
  requestHash: string
  response: string
}

/** What a create gets when its Idempotency-Key is already claimed. */
export type ClaimedOutcome = { kind: 'replayed'; pet: Pet } | { kind: 'conflict' }

/** The first pet again for the same body, else a conflict. */
export function answerToClaimed(earlier: StoredClaim, claim: IdempotencyClaim): ClaimedOutcome {
  return sameRequest(earlier, claim)
    ? { kind: 'replayed', pet: JSON.parse(earlier.response) as Pet }
    : { kind: 'conflict' }
}

/** Whether a claim comes back with the body that made it (so its first answer is replayed), not another. */
export function sameRequest(earlier: StoredClaim, claim: IdempotencyClaim): boolean {
  return earlier.requestHash === claim.requestHash
}
