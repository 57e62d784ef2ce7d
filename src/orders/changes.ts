import { type IdempotencyClaim, type StoredClaim, sameRequest } from '../pets/idempotency'
import type { Pet, PetStatus } from '../pets/schema'
import type { Order, OrderOutcome, OrderStatus } from './schema'

/**
 * What placing an order did: placed it (its pet is now `pending`), replayed
 * the one an earlier request with the same Idempotency-Key and body placed,
 * refused that key with another body, or found no pet or one not available.
 */
export type PlaceOutcome =
  | { kind: 'placed'; order: Order }
  | { kind: 'replayed'; order: Order }
  | { kind: 'conflict' }
  | { kind: 'pet_not_found' }
  | { kind: 'pet_not_available'; status: PetStatus }

/** What an order's update did (the order as stored now), or why it did nothing. */
export type OrderUpdateOutcome =
  | { kind: 'updated'; order: Order }
  | { kind: 'not_found' }
  | { kind: 'precondition_failed' }
  | { kind: 'invalid_transition'; from: OrderStatus; to: OrderStatus }

/** Whether the order as it stands now is the one the client last saw (its `If-Match`). */
export type OrderPrecondition = (current: Order) => boolean

/** Told, after the commit, of every pet an order changed (the page cache drops the pages it alters). */
export type PetChanged = (before: Pet, after: Pet) => void

// The moves an order's status may make (decisions.md, "Orders"): both ends are final.
const MOVES: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
}

/** The statuses an order with status `from` may move to (none: `delivered` and `cancelled` are final). */
export function orderMovesFrom(from: OrderStatus): readonly OrderStatus[] {
  return MOVES[from]
}

/** The status an order's pet takes when the order ends so: a delivered order's pet is sold, a cancelled one's available. */
export const PET_STATUS_AFTER: Readonly<Record<OrderOutcome, PetStatus>> = { delivered: 'sold', cancelled: 'available' }

/** Why the pet of a new order, with status `status` (undefined: no such pet), cannot be reserved; undefined when it can. */
export function decidePlace(
  status: PetStatus | undefined,
): Extract<PlaceOutcome, { kind: `pet_${string}` }> | undefined {
  if (status === undefined) return { kind: 'pet_not_found' }
  if (status !== 'available') return { kind: 'pet_not_available', status }
  return undefined
}

/**
 * The one rule both stores apply to an order's update, inside its
 * transaction: the order must exist (for this key line), then match the
 * precondition, then move only as MOVES allows; setting the status it has
 * is no move, and writes nothing (`unchanged`), so a retried delivery is a
 * 200, not a 409.
 */
export function decideOrderUpdate(
  current: Order | undefined,
  to: OrderOutcome,
  precondition: OrderPrecondition | undefined,
): { kind: 'store'; unchanged: boolean } | Exclude<OrderUpdateOutcome, { kind: 'updated' }> {
  if (current === undefined) return { kind: 'not_found' }
  if (precondition !== undefined && !precondition(current)) return { kind: 'precondition_failed' }
  if (current.status === to) return { kind: 'store', unchanged: true }
  if (!MOVES[current.status].includes(to)) return { kind: 'invalid_transition', from: current.status, to }
  return { kind: 'store', unchanged: false }
}

/** The first order again for the same body, else a conflict. */
export function answerToClaimedOrder(earlier: StoredClaim, claim: IdempotencyClaim): PlaceOutcome {
  return sameRequest(earlier, claim)
    ? { kind: 'replayed', order: JSON.parse(earlier.response) as Order }
    : { kind: 'conflict' }
}

/**
 * Identifies a placeOrder body by its value; the operation's name keeps it
 * apart from every createPet body, which shares the key's Idempotency-Keys.
 */
export function orderBodyHash(petId: number): string {
  return Bun.SHA256.hash(JSON.stringify(['placeOrder', petId]), 'hex')
}
