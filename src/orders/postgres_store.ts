import type { SQL } from 'bun'
import { beforeDeadline, type Deadline, orUnavailable } from '../db/postgres'
import { returnedRow } from '../db/returned_row'
import type { IdempotencyClaim } from '../pets/idempotency'
import { rowsForPage } from '../pets/paging'
import { ClaimTaken, earlierClaim, takeClaim } from '../pets/postgres_claims'
import type { PetStatus } from '../pets/schema'
import {
  answerToClaimedOrder,
  decideOrderUpdate,
  decidePlace,
  type OrderPrecondition,
  type OrderUpdateOutcome,
  PET_STATUS_AFTER,
  type PlaceOutcome,
} from './changes'
import { type OrderRow, orderOf, orderPageOf } from './rows'
import type { Order, OrderOutcome } from './schema'
import type { OrderListQuery, OrderPage, OrderStore } from './store'

const COLUMNS = 'id, pet_id AS "petId", status, placed_at AS "placedAt", updated_at AS "updatedAt"'

/** How many times a placement tries a pet that keeps becoming available again between its tries. */
const PLACE_ATTEMPTS = 3

/** Thrown inside a placement's transaction to roll it back (the claim it deleted included): the pet was not available. */
class NotReserved extends Error {}

/**
 * OrderStore on PostgreSQL, for several instances sharing one database.
 * A placement reserves its pet with one conditional update (`status =
 * 'available'` in its WHERE): of concurrent ones, the first takes the pet's
 * row lock and the others, once it commits, find the pet `pending` and
 * reserve nothing. An order's end locks the order's row, then moves its pet.
 * Pet changes lock the pet's row before they look at its orders, so they
 * see every order that committed before them.
 */
export class PostgresOrderStore implements OrderStore {
  #sql: SQL

  constructor(sql: SQL) {
    this.#sql = sql
  }

  place(petId: number, owner: number, now: number, claim?: IdempotencyClaim): Promise<PlaceOutcome> {
    return orUnavailable(async (deadline) => {
      for (let attempt = 1; ; attempt++) {
        const placed = await this.#tryPlace(petId, owner, now, deadline, claim)
        if (placed !== undefined) return { kind: 'placed', order: placed }
        // Nothing was written. A request with the same key that placed this very order is why the pet is
        // pending: its claim is committed, and is answered first.
        if (claim !== undefined) {
          const earlier = await earlierClaim(this.#sql, claim)
          if (earlier !== undefined) return answerToClaimedOrder(earlier, claim)
        }
        const [pet]: { status: PetStatus }[] = await this.#sql`SELECT status FROM pets WHERE id = ${petId}`
        const refused = decidePlace(pet?.status)
        // Available again already (its order was cancelled in between): try again, a few times.
        if (refused !== undefined || attempt === PLACE_ATTEMPTS)
          return refused ?? { kind: 'pet_not_available', status: 'pending' }
      }
    })
  }

  /** One try: the order placed, or undefined when the pet was not available or the claim was taken (nothing written). */
  async #tryPlace(
    petId: number,
    owner: number,
    now: number,
    deadline: Deadline,
    claim?: IdempotencyClaim,
  ): Promise<Order | undefined> {
    try {
      return await beforeDeadline(this.#sql, deadline, async (tx) => {
        const reserved = await tx`
          UPDATE pets SET status = 'pending' WHERE id = ${petId} AND status = 'available' RETURNING id`
        if (reserved.length === 0) throw new NotReserved()
        const [row]: OrderRow[] = await tx.unsafe(
          `INSERT INTO orders (pet_id, owner_id, status, placed_at, updated_at) VALUES ($1, $2, 'placed', $3, $3)
           RETURNING ${COLUMNS}`,
          [petId, owner, now],
        )
        const placed = orderOf(returnedRow(row))
        if (claim !== undefined) await takeClaim(tx, claim, JSON.stringify(placed))
        return placed
      })
    } catch (error) {
      if (error instanceof ClaimTaken || error instanceof NotReserved) return undefined
      throw error
    }
  }

  get(id: number, owner: number): Promise<Order | undefined> {
    return orUnavailable(async () => {
      const [row]: OrderRow[] = await this.#sql.unsafe(
        `SELECT ${COLUMNS} FROM orders WHERE id = $1 AND owner_id = $2`,
        [id, owner],
      )
      return row && orderOf(row)
    })
  }

  list({ owner, limit, status, petId, after = 0 }: OrderListQuery): Promise<OrderPage> {
    const values: (string | number)[] = [owner]
    let where = 'owner_id = $1'
    if (status !== undefined) where += ` AND status = $${values.push(status)}`
    if (petId !== undefined) where += ` AND pet_id = $${values.push(petId)}`
    where += ` AND id > $${values.push(after)}`
    return orUnavailable(async () => {
      // Four statement texts at most, each served by its (owner_id, ..., id) index.
      const rows: OrderRow[] = await this.#sql.unsafe(
        `SELECT ${COLUMNS} FROM orders WHERE ${where} ORDER BY id LIMIT $${values.push(rowsForPage(limit))}`,
        values,
      )
      return orderPageOf([...rows], limit)
    })
  }

  update(
    id: number,
    owner: number,
    status: OrderOutcome,
    now: number,
    precondition?: OrderPrecondition,
  ): Promise<OrderUpdateOutcome> {
    return orUnavailable((deadline) =>
      beforeDeadline(this.#sql, deadline, async (tx): Promise<OrderUpdateOutcome> => {
        // Locked until the transaction ends: a concurrent end of this order waits, then sees this one's.
        const [row]: OrderRow[] = await tx.unsafe(
          `SELECT ${COLUMNS} FROM orders WHERE id = $1 AND owner_id = $2 FOR UPDATE`,
          [id, owner],
        )
        const current = row && orderOf(row)
        const decided = decideOrderUpdate(current, status, precondition)
        if (decided.kind !== 'store') return decided
        if (decided.unchanged) return { kind: 'updated', order: current as Order }
        const [changed]: OrderRow[] = await tx.unsafe(
          `UPDATE orders SET status = $2, updated_at = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
          [id, status, now],
        )
        await tx`UPDATE pets SET status = ${PET_STATUS_AFTER[status]} WHERE id = ${(current as Order).petId}`
        return { kind: 'updated', order: orderOf(returnedRow(changed)) }
      }),
    )
  }
}
