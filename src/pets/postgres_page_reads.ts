import type { SQL } from 'bun'
import { rowsForPage } from './paging'
import { type PetRow, toPet } from './postgres_rows'
import type { Pet } from './schema'

/** A page read waiting for its turn's statement: where it starts, how many rows it wants, and who waits. */
interface WaitingRead {
  after: number
  rows: number
  resolve: (pets: Pet[]) => void
  reject: (error: unknown) => void
}

/** A row of the turn's statement: the read it answers (from 1), and the pet. */
type GroupedRow = PetRow & { read: number }

/**
 * The unfiltered page reads of one turn of the event loop (`GET /v1/pets`
 * without a status) in one statement, not one each: each read waits for
 * `setImmediate`, and the turn's reads then go out as one array of
 * (after, rows), walked by a lateral join, the same index scan a read alone
 * makes. A statement costs Bun's client 30 to 40 µs of CPU whatever it
 * returns, so the requests a turn serves together (a Redis reply wakes a
 * key's requests of a turn at once) share that cost (bench/README.md,
 * "One statement for a turn's page reads").
 *
 * A read is sent after it was asked, never before, so it sees every commit
 * that preceded its request, as a statement of its own would. Reads with a
 * status keep their own statement: given as a parameter of the group, the
 * status hides from the planner that the (status, id) index serves it, and a
 * rare status would then be found by walking the whole table in id order.
 */
export class PostgresPageReads {
  readonly #sql: SQL
  #waiting: WaitingRead[] = []

  constructor(sql: SQL) {
    this.#sql = sql
  }

  /** The pets after id `after` in id order, one more than a page of `limit` (rowsForPage): this turn's statement reads them. */
  read(after: number, limit: number): Promise<Pet[]> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(this.#send)
      this.#waiting.push({ after, rows: rowsForPage(limit), resolve, reject })
    })
  }

  readonly #send = async () => {
    const reads = this.#waiting
    this.#waiting = []
    let rows: GroupedRow[]
    try {
      rows = await this.#sql`
        SELECT r.read::int4 AS read, p.id::float8 AS id, p.name, p.category_id::float8 AS "categoryId", p.status
        FROM unnest(${reads.map((r) => r.after)}::bigint[], ${reads.map((r) => r.rows)}::int[])
          WITH ORDINALITY AS r(after, rows, read)
        CROSS JOIN LATERAL (
          SELECT id, name, category_id, status FROM pets WHERE id > r.after ORDER BY id LIMIT r.rows
        ) AS p
        ORDER BY r.read, p.id`
    } catch (error) {
      for (const read of reads) read.reject(error)
      return
    }
    const pages: Pet[][] = reads.map(() => [])
    for (const row of rows) pages[row.read - 1]!.push(toPet(row))
    for (let i = 0; i < reads.length; i++) reads[i]!.resolve(pages[i]!)
  }
}
