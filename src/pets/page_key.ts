import { MAX_LIMIT, type PetStatus } from './schema'
import type { PetListQuery } from './store'

/** Which page a query asks for: a number for every page a store can have, text past that (pageKey). */
export type PageKey = number | string

/** A status's place in a page's key; 0 is no status (every pet). */
const STATUS_PLACE: Record<PetStatus, number> = { available: 1, pending: 2, sold: 3 }
/** Room in a numeric key for the limit (1 to MAX_LIMIT) and the status (0 to 3) of a page, per `after`. */
const PLACES_PER_AFTER = 4 * (MAX_LIMIT + 1)
/** The highest `after` whose numeric key stays an exact integer (at most 2^53 − 1), so no two keys meet. */
const LARGEST_NUMERIC_AFTER = Math.floor((Number.MAX_SAFE_INTEGER - (PLACES_PER_AFTER - 1)) / PLACES_PER_AFTER)

/**
 * A page's key for the page caches (page_cache.ts, shared_page_cache.ts):
 * `after × 404 + limit × 4 + status`, a number, which a Map finds without
 * making and hashing text. Keyed by text, a page read once cost the cold
 * list about a seventh of its server CPU a request (bench/README.md, "A
 * page's key as a number"). First pages (`after` 0) so sit below 404 and
 * later ones above, and the two never meet. An `after` past
 * LARGEST_NUMERIC_AFTER, which no store reaches by counting ids up, keys
 * its page as text.
 */
export function pageKey({ limit, status, after = 0 }: PetListQuery): PageKey {
  const place = limit * 4 + (status === undefined ? 0 : STATUS_PLACE[status])
  return after <= LARGEST_NUMERIC_AFTER ? after * PLACES_PER_AFTER + place : `${place}:${after}`
}
