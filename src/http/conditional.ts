/**
 * Conditional requests (RFC 9110 §8.8.3, §13.1.2): a strong entity tag for a
 * representation, and whether an `If-None-Match` field matches it.
 */

/** A strong ETag for a representation's bytes (64-bit wyhash, as `"` base-36 `"`): equal texts, equal tags. */
export function entityTag(representation: string): string {
  return `"${Bun.hash(representation).toString(36)}"`
}

/**
 * Whether `If-None-Match` matches `etag` by weak comparison, as the RFC
 * requires for this field: `*` matches any current representation, else
 * any tag of the comma-separated list whose opaque part equals the tag's
 * (`W/"x"` matches `"x"`). A field that is not a list of tags matches nothing.
 */
export function ifNoneMatchMatches(field: string | null, etag: string): boolean {
  if (field === null) return false
  if (field.trim() === '*') return true
  let at = 0
  while (at < field.length) {
    while (field[at] === ' ' || field[at] === '\t' || field[at] === ',') at++
    if (at >= field.length) return false
    if (field.startsWith('W/', at)) at += 2
    if (field[at] !== '"') return false
    const end = field.indexOf('"', at + 1)
    if (end === -1) return false
    if (end - at + 1 === etag.length && field.startsWith(etag, at)) return true
    at = end + 1
  }
  return false
}
