import type { Awaitable } from '../awaitable'
import type { DeleteOutcome, PetChanges, PetPrecondition, UpdateOutcome } from './changes'
import type { ClaimedOutcome, IdempotencyClaim } from './idempotency'
import type { Inventory, NewPet, Pet, PetStatus } from './schema'

/** One page of pets in id order, and whether more follow it. */
export interface PetPage {
  pets: Pet[]
  more: boolean
}

/** What a page of the list asks for; `after` is the last id already seen. */
export interface PetListQuery {
  limit: number
  status?: PetStatus
  after?: number
}

/**
 * What a create did: stored a new pet, replayed the one an earlier request
 * with the same Idempotency-Key and body stored, or refused because that key
 * came with another body.
 */
export type CreateOutcome = { kind: 'created'; pet: Pet } | ClaimedOutcome

/**
 * Where pets live: SQLite (`SqlitePetStore`, behind `CachedPetStore`) by
 * default, PostgreSQL (`PostgresPetStore`) for several instances. A call may
 * answer at once or with a promise; a database out of reach throws
 * StoreUnavailableError.
 */
export interface PetStore {
  /**
   * True when `list` always answers at once, never with a promise (SQLite):
   * the list route then answers without a promise, which Bun serves far
   * more cheaply (bench/README.md, "Answers without a promise").
   */
  readonly listsAtOnce?: boolean
  /**
   * A page. `storeVersion`: the shared store's version the request's
   * limiter call read (Redis), for a page cache shared by instances
   * (SharedPageCache); undefined when none was read, and ignored by the others.
   */
  list(query: PetListQuery, storeVersion?: string): Awaitable<PetPage>
  /** Stores a pet; with a claim, atomically with it, so one Idempotency-Key never creates two. */
  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome>
  get(id: number): Awaitable<Pet | undefined>
  /**
   * Changes a pet, its status only as `canMove` allows, and only when
   * `precondition` holds for it as it stands (checked in the same
   * transaction, so of two updates that expect one state exactly one wins).
   * Committed as a create is (durable before it answers); a change that
   * changes nothing writes nothing.
   */
  update(id: number, changes: PetChanges, precondition?: PetPrecondition): Awaitable<UpdateOutcome>
  /** Deletes a pet, when `precondition` holds for it as it stands; committed as a create is. */
  delete(id: number, precondition?: PetPrecondition): Awaitable<DeleteOutcome>
  /** How many pets have each status, exact, at a cost that does not grow with the number of pets. */
  inventory(): Awaitable<Inventory>
  /** Whether the database answers a trivial query: for `/health`. */
  answers(): Awaitable<boolean>
}
