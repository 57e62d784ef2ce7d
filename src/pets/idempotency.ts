import type { NewPet, Pet } from './schema'
import type { CreateOutcome } from './store'

/** How long a create stays replayable under its Idempotency-Key. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

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
  return Bun.SHA256.hash(JSON.stringify([pet.name, pet.categoryId, pet.status ?? null]), 'hex')
}

/** A claim as a store keeps it: the hash of the body that made it and the pet (JSON) it answered with. */
export interface StoredClaim {
  requestHash: string
  response: string
}

/** What a create whose Idempotency-Key is already claimed gets: the first pet again for the same body, else a conflict. */
export function answerToClaimed(earlier: StoredClaim, claim: IdempotencyClaim): CreateOutcome {
  return earlier.requestHash === claim.requestHash
    ? { kind: 'replayed', pet: JSON.parse(earlier.response) as Pet }
    : { kind: 'conflict' }
}
