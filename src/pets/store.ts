import type { Database, Statement } from 'bun:sqlite'
import type { Awaitable } from '../awaitable'
import { DEFAULT_STATUS, type NewPet, type Pet, type PetStatus } from './schema'

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

/** Where pets live. SQLite is the default; another database implements the same three calls. */
export interface PetStore {
  list(query: PetListQuery): Awaitable<PetPage>
  create(pet: NewPet): Awaitable<Pet>
  get(id: number): Awaitable<Pet | undefined>
  /** Whether the database answers a trivial query: for `/health`. */
  answers(): Awaitable<boolean>
}

const COLUMNS = 'id, name, category_id AS categoryId, status'

/** PetStore on bun:sqlite, every statement prepared once. */
export class SqlitePetStore implements PetStore {
  #page: Statement<Pet, [number, number]>
  #pageByStatus: Statement<Pet, [string, number, number]>
  #insert: Statement<Pet, [string, number, string]>
  #byId: Statement<Pet, [number]>
  #ping: Statement<{ one: number }, []>

  constructor(db: Database) {
    this.#page = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2`)
    // Served by the (status, id) index: a seek, then a walk in id order.
    this.#pageByStatus = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE status = ?1 AND id > ?2 ORDER BY id LIMIT ?3`)
    this.#insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3) RETURNING ${COLUMNS}`)
    this.#byId = db.prepare(`SELECT ${COLUMNS} FROM pets WHERE id = ?1`)
    this.#ping = db.prepare('SELECT 1 AS one FROM pets LIMIT 1')
  }

  list({ limit, status, after = 0 }: PetListQuery): PetPage {
    // One row beyond the page tells whether a next page exists.
    const rows = status === undefined ? this.#page.all(after, limit + 1) : this.#pageByStatus.all(status, after, limit + 1)
    const more = rows.length > limit
    if (more) rows.pop()
    return { pets: rows, more }
  }

  create(pet: NewPet): Pet {
    const row = this.#insert.get(pet.name, pet.categoryId, pet.status ?? DEFAULT_STATUS)
    if (!row) throw new Error('INSERT … RETURNING gave no row')
    return row
  }

  get(id: number): Pet | undefined {
    return this.#byId.get(id) ?? undefined
  }

  answers(): boolean {
    try {
      this.#ping.get()
      return true
    } catch {
      return false
    }
  }
}
