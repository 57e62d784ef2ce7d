import type { Database, Statement } from 'bun:sqlite'
import { boundLimit } from '../db/bound_limit'
import type { GroupCommit } from '../db/group_commit'
import { returnedRow } from '../db/returned_row'
import type { IdempotencyClaim } from '../pets/idempotency'
import { rowsForPage } from '../pets/paging'
import type { Pet, PetStatus } from '../pets/schema'
import { SqliteClaims } from '../pets/sqlite_claims'
import { PET_COLUMNS } from '../pets/sqlite_store'
import {
  answerToClaimedOrder,
  decideOrderUpdate,
  decidePlace,
  type OrderPrecondition,
  type OrderUpdateOutcome,
  PET_STATUS_AFTER,
  type PetChanged,
  type PlaceOutcome,
} from './changes'
import { type OrderRow, orderOf, orderPageOf } from './rows'
import type { Order, OrderOutcome } from './schema'
import type { OrderListQuery, OrderPage, OrderStore } from './store'

const COLUMNS = 'id, pet_id AS petId, status, placed_at AS placedAt, updated_at AS updatedAt'

/** The list's filters, as the key of the statement that serves them. */
type Filter = '' | 'status' | 'petId' | 'status,petId'

/**
 * OrderStore on bun:sqlite. Every write runs on the pets' group commit
 * (`writes`), inside a transaction that holds the file's write lock: it reads
 * the pet or the order, decides, and writes both, with no other write (in
 * this process or another on the same file) in between. So of concurrent
 * orders for one pet exactly one finds it `available`. Once committed, each
 * pet it changed is reported to `petChanged` (the page cache).
 */
export class SqliteOrderStore implements OrderStore {
  #writes: GroupCommit
  #petChanged: PetChanged
  #claims: SqliteClaims
  #pet: Statement<Pet, [number]>
  #setPetStatus: Statement<Pet, [number, string]>
  #insert: Statement<OrderRow, [number, number, number]>
  #byId: Statement<OrderRow, [number, number]>
  #setStatus: Statement<OrderRow, [number, string, number]>
  #pages: Record<Filter, Statement<OrderRow, (string | number)[]>>

  constructor(db: Database, writes: GroupCommit, petChanged: PetChanged) {
    this.#writes = writes
    this.#petChanged = petChanged
    this.#claims = new SqliteClaims(db)
    this.#pet = db.prepare(`SELECT ${PET_COLUMNS} FROM pets WHERE id = ?1`)
    this.#setPetStatus = db.prepare(`UPDATE pets SET status = ?2 WHERE id = ?1 RETURNING ${PET_COLUMNS}`)
    this.#insert = db.prepare(
      `INSERT INTO orders (pet_id, owner_id, status, placed_at, updated_at) VALUES (?1, ?2, 'placed', ?3, ?3)
       RETURNING ${COLUMNS}`,
    )
    this.#byId = db.prepare(`SELECT ${COLUMNS} FROM orders WHERE id = ?1 AND owner_id = ?2`)
    this.#setStatus = db.prepare(`UPDATE orders SET status = ?2, updated_at = ?3 WHERE id = ?1 RETURNING ${COLUMNS}`)
    // One statement per filter, each served by its own (owner_id, ..., id) index: a seek, then a walk in id order.
    const page = (where: string) =>
      db.prepare<OrderRow, (string | number)[]>(
        `SELECT ${COLUMNS} FROM orders WHERE owner_id = ? ${where} AND id > ? ORDER BY id ${boundLimit('?')}`,
      )
    this.#pages = {
      '': page(''),
      status: page('AND status = ?'),
      petId: page('AND pet_id = ?'),
      'status,petId': page('AND status = ? AND pet_id = ?'),
    }
  }

  place(petId: number, owner: number, now: number, claim?: IdempotencyClaim): Promise<PlaceOutcome> {
    let reserved: [Pet, Pet] | undefined
    const placing = this.#writes.write((): PlaceOutcome => {
      reserved = undefined
      if (claim !== undefined) {
        const earlier = this.#claims.find(claim)
        if (earlier) return answerToClaimedOrder(earlier, claim)
      }
      const pet = this.#pet.get(petId)
      const refused = decidePlace(pet?.status)
      if (refused !== undefined) return refused
      reserved = [pet as Pet, this.#movePet(petId, 'pending')]
      const order = orderOf(returnedRow(this.#insert.get(petId, owner, now)))
      if (claim !== undefined) this.#claims.save(claim, JSON.stringify(order))
      return { kind: 'placed', order }
    })
    return placing.then((outcome) => {
      if (reserved !== undefined) this.#petChanged(...reserved)
      return outcome
    })
  }

  get(id: number, owner: number): Order | undefined {
    try {
      const row = this.#byId.get(id, owner)
      return row === null ? undefined : orderOf(row)
    } catch (error) {
      throw this.#writes.fault(error)
    }
  }

  list({ owner, limit, status, petId, after = 0 }: OrderListQuery): OrderPage {
    const filter = [status === undefined ? '' : 'status', petId === undefined ? '' : 'petId']
      .filter(Boolean)
      .join(',') as Filter
    const values: (string | number)[] = [owner]
    if (status !== undefined) values.push(status)
    if (petId !== undefined) values.push(petId)
    try {
      return orderPageOf(this.#pages[filter].all(...values, after, rowsForPage(limit)), limit)
    } catch (error) {
      throw this.#writes.fault(error)
    }
  }

  update(
    id: number,
    owner: number,
    status: OrderOutcome,
    now: number,
    precondition?: OrderPrecondition,
  ): Promise<OrderUpdateOutcome> {
    let moved: [Pet, Pet] | undefined
    const updating = this.#writes.write((): OrderUpdateOutcome => {
      moved = undefined
      const row = this.#byId.get(id, owner)
      const current = row === null ? undefined : orderOf(row)
      const decided = decideOrderUpdate(current, status, precondition)
      if (decided.kind !== 'store') return decided
      const order = current as Order
      if (decided.unchanged) return { kind: 'updated', order }
      const pet = returnedRow(this.#pet.get(order.petId))
      moved = [pet, this.#movePet(order.petId, PET_STATUS_AFTER[status])]
      return { kind: 'updated', order: orderOf(returnedRow(this.#setStatus.get(id, status, now))) }
    })
    return updating.then((outcome) => {
      if (moved !== undefined) this.#petChanged(...moved)
      return outcome
    })
  }

  /** Sets the status of pet `id` (which exists: an order names it), giving it as it is now. */
  #movePet(id: number, status: PetStatus): Pet {
    return returnedRow(this.#setPetStatus.get(id, status))
  }
}
