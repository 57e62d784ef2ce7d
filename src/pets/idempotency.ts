import type { NewPet } from './schema'

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
