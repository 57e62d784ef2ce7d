import type { Database, Statement } from 'bun:sqlite'
import { boundLimit } from '../db/bound_limit'
import { GroupCommit } from '../db/group_commit'
import { returnedRow } from '../db/returned_row'
import { TurnReads } from '../db/turn_reads'
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
import { DEFAULT_STATUS, type Inventory, type NewPet, type Pet, type PetStatus } from './schema'
import { SqliteClaims } from './sqlite_claims'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/** A pets row's columns, as a Pet names them (the order store reads and moves pets too). */
export const PET_COLUMNS = 'id, name, category_id AS categoryId, status'

/** One pet by id: on the reads' connection for a get, on `db` inside a write, which decides on it. */
const PET_BY_ID = `SELECT ${PET_COLUMNS} FROM pets WHERE id = ?1`

/** A page of pets after id ?1, ?2 rows (raw Bun's read reference, bench/servers/baseline_server.ts, reads with it too). */
export const PET_PAGE = `SELECT ${PET_COLUMNS} FROM pets WHERE id > ?1 ORDER BY id ${boundLimit('?2')}`
/** A page of the pets of status ?1 after id ?2, ?3 rows, served by the (status, id) index: a seek, then a walk in id order. */
export const PET_PAGE_BY_STATUS = `SELECT ${PET_COLUMNS} FROM pets WHERE status = ?1 AND id > ?2 ORDER BY id ${boundLimit('?3')}`

/** A row as a class instance: bun:sqlite fills these faster than plain objects. */
class PetRow implements Pet {
  declare id: number
  declare name: string
  declare categoryId: number
  declare status: PetStatus
}

/** PetStore on bun:sqlite, every statement prepared once. */
export class SqlitePetStore implements PetStore {
  readonly listsAtOnce = true
  #page: Statement<Pet, [number, number]>
  #pageByStatus: Statement<Pet, [string, number, number]>
  #insert: Statement<Pet, [string, number, string]>
  #byId: Statement<Pet, [number]>
  #readById: Statement<Pet, [number]>
  #update: Statement<Pet, [number, string, number, string]>
  #delete: Statement<null, [number]>
  #counts: Statement<{ status: PetStatus; count: number }, []>
  #ping: Statement<{ one: number }, []>
  #hasOpenOrder: Statement<{ one: number }, [number]>
  #hasOrders: Statement<{ one: number }, [number]>
  #writes: GroupCommit
  #reads: TurnReads
  #claims: SqliteClaims

  /**
   * `writes` commits every write to `db`: the order store shares it, so a pet
   * and its orders change in one order. `reads` runs the reads outside a
   * write (a page, a pet, the inventory) in one snapshot a turn; alone, a
   * store reads on `db` itself.
   */
  constructor(
    db: Database,
    writes: GroupCommit = new GroupCommit(db),
    reads = new TurnReads(db, { current: () => 0 }, { ownConnection: false }),
  ) {
    this.#writes = writes
    this.#reads = reads
    const reader = reads.db
    this.#page = reader.prepare(PET_PAGE).as(PetRow)
    this.#pageByStatus = reader.prepare(PET_PAGE_BY_STATUS).as(PetRow)
    this.#readById = reader.prepare(PET_BY_ID).as(PetRow)
    this.#insert = db.prepare(
      `INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3) RETURNING ${PET_COLUMNS}`,
    )
    this.#byId = db.prepare(PET_BY_ID).as(PetRow)
    this.#update = db
      .prepare(`UPDATE pets SET name = ?2, category_id = ?3, status = ?4 WHERE id = ?1 RETURNING ${PET_COLUMNS}`)
      .as(PetRow)
    this.#delete = db.prepare('DELETE FROM pets WHERE id = ?1')
    this.#counts = reader.prepare('SELECT status, count FROM pet_counts')
    this.#ping = db.prepare('SELECT 1 AS one FROM pets LIMIT 1')
    this.#claims = new SqliteClaims(db)
    this.#hasOpenOrder = db.prepare("SELECT 1 AS one FROM orders WHERE pet_id = ?1 AND status = 'placed'")
    this.#hasOrders = db.prepare('SELECT 1 AS one FROM orders WHERE pet_id = ?1 LIMIT 1')
  }

  list({ limit, status, after = 0 }: PetListQuery): PetPage {
    const rows = rowsForPage(limit)
    try {
      this.#reads.begin()
      return pageOf(
        status === undefined ? this.#page.all(after, rows) : this.#pageByStatus.all(status, after, rows),
        limit,
      )
    } catch (error) {
      throw this.#writes.fault(error)
    }
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    return this.#writes.write(() => this.#createOne(pet, claim))
  }

  update(id: number, changes: PetChanges, precondition?: PetPrecondition): Promise<UpdateOutcome> {
    return this.#writes.write((): UpdateOutcome => {
      const decided = decideUpdate(this.#byId.get(id) ?? undefined, changes, precondition)
      if (decided.kind !== 'store') return decided
      const { pet, previous, unchanged } = decided
      if (movesStatus(decided) && this.#hasOpenOrder.get(id)) return { kind: 'has_open_order' }
      const stored = unchanged ? pet : returnedRow(this.#update.get(id, pet.name, pet.categoryId, pet.status))
      return { kind: 'updated', pet: stored, previous }
    })
  }

  delete(id: number, precondition?: PetPrecondition): Promise<DeleteOutcome> {
    return this.#writes.write(() => {
      const decided = decideDelete(this.#byId.get(id) ?? undefined, precondition)
      if (decided.kind !== 'delete') return decided
      if (this.#hasOrders.get(id)) return { kind: 'has_orders' }
      this.#delete.run(id)
      return { kind: 'deleted', pet: decided.pet }
    })
  }

  inventory(): Inventory {
    try {
      const inventory: Inventory = { available: 0, pending: 0, sold: 0 }
      this.#reads.begin()
      for (const { status, count } of this.#counts.all()) inventory[status] = count
      return inventory
    } catch (error) {
      throw this.#writes.fault(error)
    }
  }

  // Runs inside the batch's transaction, so a claim made earlier in the same batch is seen.
  #createOne(pet: NewPet, claim: IdempotencyClaim | undefined): CreateOutcome {
    if (claim === undefined) return { kind: 'created', pet: this.#insertPet(pet) }
    const earlier = this.#claims.find(claim)
    if (earlier) return answerToClaimed(earlier, claim)
    const created = this.#insertPet(pet)
    this.#claims.save(claim, JSON.stringify(created))
    return { kind: 'created', pet: created }
  }

  get(id: number): Pet | undefined {
    try {
      this.#reads.begin()
      return this.#readById.get(id) ?? undefined
    } catch (error) {
      throw this.#writes.fault(error)
    }
  }

  #insertPet(pet: NewPet): Pet {
    return returnedRow(this.#insert.get(pet.name, pet.categoryId, pet.status ?? DEFAULT_STATUS))
  }

  /** Whether the file is still ours and undamaged, reads work, and the last commit did not fail on the storage. */
  answers(): boolean {
    if (!this.#writes.healthy) return false
    try {
      this.#ping.get()
      return true
    } catch {
      return false
    }
  }
}
