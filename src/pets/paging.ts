import type { Pet } from './schema'
import type { PetPage } from './store'

/** How many rows a store reads for a page of `limit`: one beyond it tells whether a next page exists. */
export function rowsForPage(limit: number): number {
  return limit + 1
}

/** Whether more than a page of `limit` follow in `rows` (read with rowsForPage); cuts `rows` to the page. */
export function cutToPage(rows: unknown[], limit: number): boolean {
  const more = rows.length > limit
  if (more) rows.length = limit
  return more
}

/** The page of `limit` pets in `rows` (read with rowsForPage), and whether more follow. */
export function pageOf(rows: Pet[], limit: number): PetPage {
  const more = cutToPage(rows, limit)
  return { pets: rows, more }
}
