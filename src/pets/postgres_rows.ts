import type { Pet, PetStatus } from './schema'

/** A pets row as Bun reads it (`category_id AS "categoryId"`): PostgreSQL's bigint arrives as text. */
export interface PetRow {
  id: string
  name: string
  categoryId: string
  status: PetStatus
}

/** Exact: ids and categories are capped at 2^53 - 1 by the schema. */
export function toPet(row: PetRow): Pet {
  return { id: Number(row.id), name: row.name, categoryId: Number(row.categoryId), status: row.status }
}
