import type { NewPet, Pet, PetStatus } from './schema'

/** What an update changes: any of a pet's fields but its id; the absent ones keep their value. */
export type PetChanges = Partial<NewPet>

/**
 * Whether the pet as it stands now is the one the client last saw (its
 * `If-Match`); a store asks it inside the change's transaction. Without one,
 * the last write wins.
 */
export type PetPrecondition = (current: Pet) => boolean

/** What an update did (the pet as stored now, and as it was), or why it did nothing. */
export type UpdateOutcome =
  | { kind: 'updated'; pet: Pet; previous: Pet }
  | { kind: 'not_found' }
  | { kind: 'precondition_failed' }
  | { kind: 'invalid_transition'; from: PetStatus; to: PetStatus }
  /** The change would move the status of a pet with a `placed` order, which only that order may move. */
  | { kind: 'has_open_order' }

/** What a delete did, or why it did nothing. */
export type DeleteOutcome =
  | { kind: 'deleted'; pet: Pet }
  | { kind: 'not_found' }
  | { kind: 'precondition_failed' }
  /** An order names the pet: it stays, so the order's history does. */
  | { kind: 'has_orders' }

// The moves a status may make (decisions.md, "Pets that change"); `sold` is final.
const MOVES: Readonly<Record<PetStatus, readonly PetStatus[]>> = {
  available: ['pending', 'sold'],
  pending: ['available', 'sold'],
  sold: [],
}

/** The statuses a pet with status `from` may move to (none: `sold` is final). */
export function movesFrom(from: PetStatus): readonly PetStatus[] {
  return MOVES[from]
}

/** Whether a pet may go from status `from` to `to`: setting the status it has is no move, and allowed. */
export function canMove(from: PetStatus, to: PetStatus): boolean {
  return from === to || MOVES[from].includes(to)
}

/** An update `decideUpdate` allows: the pet as it is to be stored, as it was, and whether that is no change. */
export interface StoreDecision {
  kind: 'store'
  pet: Pet
  previous: Pet
  unchanged: boolean
}

/**
 * Whether an allowed update moves the pet's status, which a `placed` order
 * forbids (decisions.md: while a pet has one, its status moves only through
 * that order): a store that finds one answers `has_open_order` instead.
 */
export function movesStatus({ pet, previous }: StoreDecision): boolean {
  return pet.status !== previous.status
}

/**
 * The one rule both stores apply to an update, inside its transaction: the
 * pet must exist, then match the precondition (a failed `If-Match` comes
 * before anything the change would do, RFC 9110 §13.2.2), then its status
 * may move only as MOVES allows. Gives the pet as it is to be stored, or
 * the outcome that refuses the change; `unchanged` when the change is no
 * change at all, so a store writes nothing.
 */
export function decideUpdate(
  current: Pet | undefined,
  changes: PetChanges,
  precondition: PetPrecondition | undefined,
): StoreDecision | Exclude<UpdateOutcome, { kind: 'updated' | 'has_open_order' }> {
  if (current === undefined) return { kind: 'not_found' }
  if (precondition !== undefined && !precondition(current)) return { kind: 'precondition_failed' }
  const pet: Pet = {
    id: current.id,
    name: changes.name ?? current.name,
    categoryId: changes.categoryId ?? current.categoryId,
    status: changes.status ?? current.status,
  }
  if (!canMove(current.status, pet.status)) return { kind: 'invalid_transition', from: current.status, to: pet.status }
  return { kind: 'store', pet, previous: current, unchanged: samePet(pet, current) }
}

/** Whether two versions of a pet have the same fields. */
export function samePet(a: Pet, b: Pet): boolean {
  return a.name === b.name && a.categoryId === b.categoryId && a.status === b.status
}

/** The one rule both stores apply to a delete: the pet must exist, then match the precondition. */
export function decideDelete(
  current: Pet | undefined,
  precondition: PetPrecondition | undefined,
): { kind: 'delete'; pet: Pet } | Exclude<DeleteOutcome, { kind: 'deleted' | 'has_orders' }> {
  if (current === undefined) return { kind: 'not_found' }
  if (precondition !== undefined && !precondition(current)) return { kind: 'precondition_failed' }
  return { kind: 'delete', pet: current }
}
