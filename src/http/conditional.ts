/**
 * Conditional requests (RFC 9110 §8.8.3, §13.1.1, §13.1.2): a strong entity
 * tag for a representation, and whether an `If-None-Match` or an `If-Match`
 * field matches it.
 */

import type { ResponseSet } from './errors'

/**
 * A strong ETag for a representation's bytes (64-bit wyhash, as `"` base-36
 * `"`): equal texts, equal tags. `variant` seeds the hash, to tell apart
 * answers of the same bytes that say something more beside them (a page
 * whose next one follows: pets/answers.ts `pageTag`) without making a
 * second, longer text to hash (bench/README.md, "A page's tag without a
 * second text").
 */
export function entityTag(representation: string, variant = 0): string {
  return `"${Bun.hash(representation, variant).toString(36)}"`
}

/**
 * Whether `If-None-Match` matches `etag` by weak comparison, as the RFC
 * requires for this field: `*` matches any current representation, else
 * any tag of the comma-separated list whose opaque part equals the tag's
 * (`W/"x"` matches `"x"`). A field that is not a list of tags matches nothing.
 */
export function ifNoneMatchMatches(field: string | null, etag: string): boolean {
  return field !== null && listMatches(field, etag, 'weak')
}

/**
 * Whether `If-Match` matches `etag` by strong comparison, as the RFC requires
 * for this field: `*` matches any current representation, else a tag of the
 * comma-separated list equal to it; a weak tag (`W/"x"`) never matches, and a
 * field that is not a list of tags matches nothing (so the change is refused).
 */
export function ifMatchMatches(field: string, etag: string): boolean {
  return listMatches(field, etag, 'strong')
}

function listMatches(field: string, etag: string, comparison: 'weak' | 'strong'): boolean {
  if (field.trim() === '*') return true
  let at = 0
  while (at < field.length) {
    while (field[at] === ' ' || field[at] === '\t' || field[at] === ',') at++
    if (at >= field.length) return false
    const weak = field.startsWith('W/', at)
    if (weak) at += 2
    if (field[at] !== '"') return false
    const end = field.indexOf('"', at + 1)
    if (end === -1) return false
    const equal = end - at + 1 === etag.length && field.startsWith(etag, at)
    if (equal && (comparison === 'weak' || !weak)) return true
    at = end + 1
  }
  return false
}

/** The `Cache-Control` of an answer with an ETag: a cache may keep it, for the client alone, and must ask with `If-None-Match`. */
export const REVALIDATE = 'private, no-cache'

/** Tags an answer on `/v1`: its ETag, and `Cache-Control: private, no-cache` in place of the `no-store` of the others. */
export function tagAnswer(set: ResponseSet, etag: string): void {
  set.headers.etag = etag
  set.headers['cache-control'] = REVALIDATE
}

/**
 * 304 Not Modified (RFC 9110 §15.4.5): no body, the ETag and the other
 * headers set so far. Left to Elysia to build from the status: a Response
 * made here cost the hot list more than its 200 (bench/README.md,
 * "Conditional requests").
 */
export function notModified(set: ResponseSet): undefined {
  set.status = 304
  return undefined
}
