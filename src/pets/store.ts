import type { Awaitable } from '../awaitable'
import type { ClaimedOutcome, IdempotencyClaim } from './idempotency'
import type { NewPet, Pet, PetStatus } from './schema'

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
  list(query: PetListQuery): Awaitable<PetPage>
  /** Stores a pet; with a claim, atomically with it, so one Idempotency-Key never creates two. */
  create(pet: NewPet, claim?: IdempotencyClaim): Awaitable<CreateOutcome>
  get(id: number): Awaitable<Pet | undefined>
  /** Whether the database answers a trivial query: for `/health`. */
  answers(): Awaitable<boolean>
}
