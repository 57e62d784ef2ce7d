import type { Database } from 'bun:sqlite'
import { asStorageFault, fileIdentity } from './sqlite_faults'
import { StorageFaultError } from './store_unavailable'
import type { TurnReads } from './turn_reads'

/** How long a batch of writes waits, retrying, for a write lock another process holds; then it is refused (503). */
export const WRITE_LOCK_DEADLINE_MS = 5000
/** How often a batch waiting for a write lock tries again. */
export const WRITE_LOCK_RETRY_MS = 20

/** A write (a create, a change, an order) waiting for its batch's commit: it runs inside the batch's transaction. */
interface PendingWrite {
  run: () => unknown
  resolve: (outcome: never) => void
  reject: (error: unknown) => void
}

/** Whether SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB): it will not heal without a restore. */
function isDamage(error: unknown): boolean {
  return error instanceof StorageFaultError && /^SQLITE_(CORRUPT|NOTADB)/.test(error.fault)
}

/** Whether SQLite refused for a lock another connection holds (SQLITE_BUSY, SQLITE_LOCKED and their extended codes). */
function isLockHeld(error: unknown): boolean {
  return error instanceof StorageFaultError && /^SQLITE_(BUSY|LOCKED)/.test(error.fault)
}

/**
 * Every write to one SQLite connection, pets and orders alike, goes through
 * here. Group commit: the writes that arrive within one turn of the event
 * loop are made in one `BEGIN IMMEDIATE` transaction, in the order they
 * came, and each is answered once it has committed. Under concurrent load
 * this shares each commit's cost among the batch (bench/README.md, "Group
 * commit"); durability is unchanged, since no write is answered before its
 * commit. A write reads what it decides on inside that transaction, which
 * holds the file's write lock: no other write, in this process or another,
 * comes between its read and its write.
 *
 * Before each batch it ends the turn's read snapshot (`reads`, when given),
 * so a read after the commit sees it.
 *
 * It also remembers how the storage has been doing, for `/health`.
 */
export class GroupCommit {
  #commit: (batch: PendingWrite[]) => unknown[]
  #pending: PendingWrite[] = []
  #isOurFile: () => boolean
  /** The last commit failed on the storage, and none has succeeded since. */
  #writesFailing = false
  /** A statement found the file damaged: unhealthy until a restore and a restart. */
  #damaged = false
  /** A batch is being committed (or waits for another process's lock); the next one waits for it. */
  #committing = false
  #reads: Pick<TurnReads, 'end'> | undefined

  constructor(db: Database, reads?: Pick<TurnReads, 'end'>) {
    this.#reads = reads
    const writeAll = db.transaction((batch: PendingWrite[]): unknown[] => batch.map(({ run }) => run()))
    this.#commit = (batch) => writeAll.immediate(batch)
    this.#isOurFile = fileIdentity(db.filename)
  }

  /** Runs `run` inside the next batch's transaction; answers what it returned once that has committed. */
  write<T>(run: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      // One batch at a time: a batch waiting for a lock keeps the next behind it, so an Idempotency-Key
      // claimed in it is seen by the next.
      const pending: PendingWrite = { run, resolve: resolve as (outcome: never) => void, reject }
      if (this.#pending.push(pending) === 1 && !this.#committing) setImmediate(() => this.#flush())
    })
  }

  /** `error` as a StorageFaultError when the storage failed, remembering damage for `healthy`. */
  fault(error: unknown): unknown {
    const fault = asStorageFault(error)
    if (isDamage(fault)) this.#damaged = true
    return fault
  }

  /** Whether the file is still ours and undamaged, and the last commit did not fail on the storage. */
  get healthy(): boolean {
    return !this.#writesFailing && !this.#damaged && this.#isOurFile()
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
      this.#reads?.end()
      outcomes = this.#commit(batch)
    } catch (caught) {
      const error = this.fault(caught)
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
}
