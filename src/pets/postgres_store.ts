import type { SQL } from 'bun'
import { beforeDeadline, type Deadline, HEALTH_DEADLINE_MS, orUnavailable } from '../db/postgres'
import { returnedRow } from '../db/returned_row'
import {
  type DeleteOutcome,
  decideDelete,
  decideUpdate,
  movesStatus,
  type PetChanges,
  type PetPrecondition,
  type UpdateOutcome,
} from './changes'
import { answerToClaimed, type IdempotencyClaim } from './idempotency'
import { pageOf, rowsForPage } from './paging'
import { ClaimTaken, earlierClaim, takeClaim } from './postgres_claims'
import { PostgresPageReads } from './postgres_page_reads'
import { type PetRow, petColumns } from './postgres_rows'
import { DEFAULT_STATUS, type Inventory, type NewPet, type Pet } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/**
 * PetStore on PostgreSQL, for several instances sharing one database. No page
 * cache of its own and no group commit: another instance may write at any
 * time, and PostgreSQL serves concurrent writers itself. The unfiltered page
 * reads of a turn share one statement (PostgresPageReads).
 */
export class PostgresPetStore implements PetStore {
  readonly #sql: SQL
  readonly #pageReads: PostgresPageReads

  constructor(sql: SQL) {
    this.#sql = sql
    this.#pageReads = new PostgresPageReads(sql)
  }

  list(query: PetListQuery): Promise<PetPage> {
    return orUnavailable(() => this.#list(query))
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    return orUnavailable((deadline) => this.#create(pet, deadline, claim))
  }

  get(id: number): Promise<Pet | undefined> {
    return orUnavailable(() => this.#get(id))
  }

  update(id: number, changes: PetChanges, precondition?: PetPrecondition): Promise<UpdateOutcome> {
    return orUnavailable((deadline) =>
      beforeDeadline(this.#sql, deadline, async (tx): Promise<UpdateOutcome> => {
        // Locked until the transaction ends: a concurrent change to this pet waits, then sees this one's result.
        const decided = decideUpdate(await this.#locked(tx, id), changes, precondition)
        if (decided.kind !== 'store') return decided
        const { pet, previous } = decided
        // Orders are placed, delivered and cancelled under this pet's row lock too, so this sees the last of them.
        if (movesStatus(decided) && (await hasOrder(tx, id, 'placed'))) return { kind: 'has_open_order' }
        if (decided.unchanged) return { kind: 'updated', pet, previous }
        const [row]: PetRow[] = await tx`
          UPDATE pets SET name = ${pet.name}, category_id = ${pet.categoryId}, status = ${pet.status}
          WHERE id = ${id} RETURNING ${petColumns(tx)}`
        return { kind: 'updated', pet: returnedRow(row), previous }
      }),
    )
  }

  delete(id: number, precondition?: PetPrecondition): Promise<DeleteOutcome> {
    return orUnavailable((deadline) =>
      beforeDeadline(this.#sql, deadline, async (tx): Promise<DeleteOutcome> => {
        const decided = decideDelete(await this.#locked(tx, id), precondition)
        if (decided.kind !== 'delete') return decided
        if (await hasOrder(tx, id)) return { kind: 'has_orders' }
        await tx`DELETE FROM pets WHERE id = ${id}`
        return { kind: 'deleted', pet: decided.pet }
      }),
    )
  }

  inventory(): Promise<Inventory> {
    return orUnavailable(async () => {
      const rows: { status: keyof Inventory; count: string }[] = await this.#sql`
        SELECT status, sum(count) AS count FROM pet_counts GROUP BY status`
      const inventory: Inventory = { available: 0, pending: 0, sold: 0 }
      for (const { status, count } of rows) inventory[status] = Number(count)
      return inventory
    })
  }

  /** A pet, its row locked for the rest of the transaction `tx`. */
  async #locked(tx: SQL, id: number): Promise<Pet | undefined> {
    const [row]: PetRow[] = await tx`
      SELECT ${petColumns(tx)} FROM pets WHERE id = ${id} FOR UPDATE`
    return row
  }

  async #list({ limit, status, after = 0 }: PetListQuery): Promise<PetPage> {
    if (status === undefined) return pageOf(await this.#pageReads.read(after, limit), limit)
    // The (status, id) index serves the filtered walk. `pets.id`, the column: a bare `id` would name the select
    // list's double, and PostgreSQL would sort every pet of the status instead of walking the index.
    const found: PetRow[] = await this.#sql`
      SELECT ${petColumns(this.#sql)} FROM pets
      WHERE status = ${status} AND id > ${after} ORDER BY pets.id LIMIT ${rowsForPage(limit)}`
    return pageOf(found, limit)
  }

  async #create(pet: NewPet, deadline: Deadline, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    // One statement, committed as it runs: a transaction around it would halve the creates a second (three round
    // trips instead of one), so a create without a key answered 503 by a PostgreSQL that hung may still land when
    // it thaws; with an Idempotency-Key its retry is replayed (docs/operations.md, "When PostgreSQL hangs").
    if (claim === undefined) return { kind: 'created', pet: await this.#insert(this.#sql, pet) }
    try {
      const created = await beforeDeadline(this.#sql, deadline, async (tx) => {
        const stored = await this.#insert(tx, pet)
        await takeClaim(tx, claim, JSON.stringify(stored))
        return stored
      })
      return { kind: 'created', pet: created }
    } catch (error) {
      if (!(error instanceof ClaimTaken)) throw error
    }
    const earlier = await earlierClaim(this.#sql, claim)
    if (earlier === undefined) throw new Error('an Idempotency-Key claim vanished while it was being read')
    return answerToClaimed(earlier, claim)
  }

  async #get(id: number): Promise<Pet | undefined> {
    const [row]: PetRow[] = await this.#sql`SELECT ${petColumns(this.#sql)} FROM pets WHERE id = ${id}`
    return row
  }

  /** Whether PostgreSQL answers a trivial query within HEALTH_DEADLINE_MS: `/health` never waits longer. */
  async answers(): Promise<boolean> {
    try {
      await orUnavailable(() => this.#sql`SELECT 1`, HEALTH_DEADLINE_MS)
      return true
    } catch {
      return false
    }
  }

  async #insert(sql: SQL, pet: NewPet): Promise<Pet> {
    const [row]: PetRow[] = await sql`
      INSERT INTO pets (name, category_id, status) VALUES (${pet.name}, ${pet.categoryId}, ${pet.status ?? DEFAULT_STATUS})
      RETURNING ${petColumns(sql)}`
    return returnedRow(row)
  }
}

/** Whether an order names pet `id` (with `status`, when given). */
async function hasOrder(tx: SQL, id: number, status?: string): Promise<boolean> {
  const found =
    status === undefined
      ? await tx`SELECT 1 FROM orders WHERE pet_id = ${id} LIMIT 1`
      : await tx`SELECT 1 FROM orders WHERE pet_id = ${id} AND status = ${status} LIMIT 1`
  return found.length > 0
}
