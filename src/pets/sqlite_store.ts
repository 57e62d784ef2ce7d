import type { Database, Statement } from 'bun:sqlite'
import { returnedRow } from '../db/returned_row'
import { asStorageFault, fileIdentity } from '../db/sqlite_faults'
import { StorageFaultError } from '../db/store_unavailable'
import {
  type DeleteOutcome,
  decideDelete,
  decideUpdate,
  type PetChanges,
  type PetPrecondition,
  type UpdateOutcome,
} from './changes'
import {
  answerToClaimed,
  EXPIRED_CLAIMS_PURGED_PER_CREATE,
  expiryCutoff,
  type IdempotencyClaim,
  type StoredClaim,
} from './idempotency'
import { pageOf, rowsForPage } from './paging'
import { DEFAULT_STATUS, type Inventory, type NewPet, type Pet, type PetStatus } from './schema'
import type { CreateOutcome, PetListQuery, PetPage, PetStore } from './store'

/** A write (a create, an update, a delete) waiting for its batch's commit: it runs inside the batch's transaction. */
interface PendingWrite {
  run: () => unknown
  resolve: (outcome: never) => void
  reject: (error: unknown) => void
}

const COLUMNS = 'id, name, category_id AS categoryId, status'

/** How long a batch of creates waits, retrying, for a write lock another process holds; then it is refused (503). */
export const WRITE_LOCK_DEADLINE_MS = 5000
/** How often a batch waiting for a write lock tries again. */
export const WRITE_LOCK_RETRY_MS = 20

/** Whether SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB): it will not heal without a restore. */
function isDamage(error: unknown): boolean {
  return error instanceof StorageFaultError && /^SQLITE_(CORRUPT|NOTADB)/.test(error.fault)
}

/** Whether SQLite refused for a lock another connection holds (SQLITE_BUSY, SQLITE_LOCKED and their extended codes). */
function isLockHeld(error: unknown): boolean {
  return error instanceof StorageFaultError && /^SQLITE_(BUSY|LOCKED)/.test(error.fault)
}

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
  #update: Statement<Pet, [number, string, number, string]>
  #delete: Statement<null, [number]>
  #counts: Statement<{ status: PetStatus; count: number }, []>
  #ping: Statement<{ one: number }, []>
  #findClaim: Statement<StoredClaim, [number, string, number]>
  #saveClaim: Statement<null, [number, string, string, string, number]>
  #purgeClaims: Statement<null, [number]>
  #commit: (batch: PendingWrite[]) => unknown[]
  #pending: PendingWrite[] = []
  #isOurFile: () => boolean
  /** The last commit failed on the storage, and none has succeeded since: `answers` says no. */
  #writesFailing = false
  /** A statement found the file damaged: `answers` says no until a restore and a restart. */
  #damaged = false
  /** A batch is being committed (or waits for another process's lock); the next one waits for it. */
  #committing = false

  constructor(db: Database) {
    this.#page = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2`).as(PetRow)
    // Served by the (status, id) index: a seek, then a walk in id order.
    this.#pageByStatus = db
      .prepare(`SELECT ${COLUMNS} FROM pets WHERE status = ?1 AND id > ?2 ORDER BY id LIMIT ?3`)
      .as(PetRow)
    this.#insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3) RETURNING ${COLUMNS}`)
    this.#byId = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id = ?1`).as(PetRow)
    this.#update = db
      .prepare(`UPDATE pets SET name = ?2, category_id = ?3, status = ?4 WHERE id = ?1 RETURNING ${COLUMNS}`)
      .as(PetRow)
    this.#delete = db.prepare('DELETE FROM pets WHERE id = ?1')
    this.#counts = db.prepare('SELECT status, count FROM pet_counts')
    this.#ping = db.prepare('SELECT 1 AS one FROM pets LIMIT 1')
    this.#findClaim = db.prepare(
      'SELECT request_hash AS requestHash, response FROM idempotency_keys WHERE api_key_id = ?1 AND key = ?2 AND created_at > ?3',
    )
    // An expired claim under the same key is replaced.
    this.#saveClaim = db.prepare(
      'INSERT OR REPLACE INTO idempotency_keys (api_key_id, key, request_hash, response, created_at) VALUES (?1, ?2, ?3, ?4, ?5)',
    )
    this.#purgeClaims = db.prepare(
      `DELETE FROM idempotency_keys WHERE rowid IN
       (SELECT rowid FROM idempotency_keys WHERE created_at <= ?1 LIMIT ${EXPIRED_CLAIMS_PURGED_PER_CREATE})`,
    )
    const writeAll = db.transaction((batch: PendingWrite[]): unknown[] => batch.map(({ run }) => run()))
    this.#commit = (batch) => writeAll.immediate(batch)
    this.#isOurFile = fileIdentity(db.filename)
  }

  list({ limit, status, after = 0 }: PetListQuery): PetPage {
    const rows = rowsForPage(limit)
    try {
      return pageOf(
        status === undefined ? this.#page.all(after, rows) : this.#pageByStatus.all(status, after, rows),
        limit,
      )
    } catch (error) {
      throw this.#fault(error)
    }
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    return this.#write(() => this.#createOne(pet, claim))
  }

  update(id: number, changes: PetChanges, precondition?: PetPrecondition): Promise<UpdateOutcome> {
    return this.#write((): UpdateOutcome => {
      const decided = decideUpdate(this.#byId.get(id) ?? undefined, changes, precondition)
      if (decided.kind !== 'store') return decided
      const { pet, previous, unchanged } = decided
      const stored = unchanged ? pet : returnedRow(this.#update.get(id, pet.name, pet.categoryId, pet.status))
      return { kind: 'updated', pet: stored, previous }
    })
  }

  delete(id: number, precondition?: PetPrecondition): Promise<DeleteOutcome> {
    return this.#write(() => {
      const decided = decideDelete(this.#byId.get(id) ?? undefined, precondition)
      if (decided.kind !== 'delete') return decided
      this.#delete.run(id)
      return { kind: 'deleted', pet: decided.pet }
    })
  }

  inventory(): Inventory {
    try {
      const inventory: Inventory = { available: 0, pending: 0, sold: 0 }
      for (const { status, count } of this.#counts.all()) inventory[status] = count
      return inventory
    } catch (error) {
      throw this.#fault(error)
    }
  }

  /**
   * Group commit: the writes that arrive within one turn of the event loop
   * are made in one transaction, in the order they came, and each is
   * answered once it has committed. Under concurrent load this shares each
   * commit's cost among the batch (bench/README.md, "Group commit");
   * durability is unchanged, since no write is answered before its commit.
   */
  #write<T>(run: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      // One batch at a time: a batch waiting for a lock keeps the next behind it, so an Idempotency-Key
      // claimed in it is seen by the next.
      const pending: PendingWrite = { run, resolve: resolve as (outcome: never) => void, reject }
      if (this.#pending.push(pending) === 1 && !this.#committing) setImmediate(() => this.#flush())
    })
  }

  #flush(): void {
    const batch = this.#pending
    this.#pending = []
    this.#committing = true
    this.#commitBatch(batch, Date.now() + WRITE_LOCK_DEADLINE_MS)
  }

  /**
   * Commits `batch`; while another process holds the write lock, tries again
   * every WRITE_LOCK_RETRY_MS on a timer (the connection waits at most
   * SERVER_BUSY_TIMEOUT_MS each time), so reads and everything else go on
   * meanwhile; past `deadline`, the batch is refused as a storage fault.
   */
  #commitBatch(batch: PendingWrite[], deadline: number): void {
    let outcomes: unknown[]
    try {
      // One stat per batch: a file deleted or replaced under the service takes no more writes.
      if (!this.#isOurFile()) throw new StorageFaultError('SQLITE_CANTOPEN (the database file was deleted or replaced)')
      outcomes = this.#commit(batch)
    } catch (caught) {
      const error = this.#fault(caught)
      if (isLockHeld(error) && Date.now() < deadline) {
        setTimeout(() => this.#commitBatch(batch, deadline), WRITE_LOCK_RETRY_MS)
        return
      }
      if (error instanceof StorageFaultError) this.#writesFailing = true
      for (const pending of batch) pending.reject(error)
      this.#next()
      return
    }
    this.#writesFailing = false
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(outcomes[i] as never)
    this.#next()
  }

  #next(): void {
    this.#committing = false
    if (this.#pending.length > 0) setImmediate(() => this.#flush())
  }

  // Runs inside the batch's transaction, so a claim made earlier in the same batch is seen.
  #createOne(pet: NewPet, claim: IdempotencyClaim | undefined): CreateOutcome {
    if (claim === undefined) return { kind: 'created', pet: this.#insertPet(pet) }
    const cutoff = expiryCutoff(claim)
    const earlier = this.#findClaim.get(claim.apiKeyId, claim.key, cutoff)
    if (earlier) return answerToClaimed(earlier, claim)
    const created = this.#insertPet(pet)
    this.#saveClaim.run(claim.apiKeyId, claim.key, claim.requestHash, JSON.stringify(created), claim.now)
    this.#purgeClaims.run(cutoff)
    return { kind: 'created', pet: created }
  }

  get(id: number): Pet | undefined {
    try {
      return this.#byId.get(id) ?? undefined
    } catch (error) {
      throw this.#fault(error)
    }
  }

  #insertPet(pet: NewPet): Pet {
    return returnedRow(this.#insert.get(pet.name, pet.categoryId, pet.status ?? DEFAULT_STATUS))
  }

  /** `error` as a StorageFaultError when the storage failed, remembering damage for `answers`. */
  #fault(error: unknown): unknown {
    const fault = asStorageFault(error)
    if (isDamage(fault)) this.#damaged = true
    return fault
  }

  /** Whether the file is still ours and undamaged, reads work, and the last commit did not fail on the storage. */
  answers(): boolean {
    if (this.#writesFailing || this.#damaged || !this.#isOurFile()) return false
    try {
      this.#ping.get()
      return true
    } catch {
      return false
    }
  }
}
