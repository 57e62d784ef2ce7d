import type { SQL } from 'bun'
import type { Pet, PetStatus } from './schema'

/**
 * A pets row as Bun reads it, which is the pet itself. Every statement selects
 * `id::float8 AS id, name, category_id::float8 AS "categoryId", status`
 * (petColumns; the grouped page read names them with its table's alias):
 * PostgreSQL's bigint arrives from Bun as text, which costs its client a
 * string a column and the service a `Number()` each, where a double arrives
 * as a number. Exact: ids and categories are capped at 2^53 - 1 by the
 * schema, and a double holds every integer up to it. The text form cost
 * Bun's client 12.0 µs a page against 8.5 as numbers when a turn's
 * statement read 50 pages; with 8 pages the noise could tell no difference
 * (bench/README.md, "Numbers read as numbers").
 */
export interface PetRow {
  id: number
  name: string
  categoryId: number
  status: PetStatus
}

/** The pet alone, of a row that holds other columns too (a grouped read's `read`), which its JSON must not show. */
export function toPet(row: PetRow): Pet {
  return { id: row.id, name: row.name, categoryId: row.categoryId, status: row.status }
}

/**
 * The select list of a pets row (PetRow), as a piece of a statement of `sql`:
 * `${petColumns(sql)}` inside its template. Bun adds the text as written
 * (`sql.unsafe` nested in a template), so the statement is prepared once as
 * if spelled out; the text is this constant, never a caller's.
 */
export function petColumns(sql: SQL): SQL.Query<unknown> {
  return sql.unsafe(PET_SELECT_LIST)
}

const PET_SELECT_LIST = 'id::float8 AS id, name, category_id::float8 AS "categoryId", status'
