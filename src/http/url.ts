/** Where the path of an absolute URL starts: the first "/" after "scheme://", or its length when it has none. */
export function pathStart(url: string): number {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  return start === -1 ? url.length : start
}

/** The path of an absolute URL, without its query. */
export function pathOf(url: string): string {
  const start = pathStart(url)
  const query = url.indexOf('?', start)
  return start === url.length ? '/' : url.slice(start, query === -1 ? undefined : query)
}

/**
 * The absolute base that `Link` and `Location` headers are built on: the
 * configured public URL, or else the scheme and host the request came to.
 */
export function baseUrl(publicUrl: string | undefined, requestUrl: string): string {
  return publicUrl ?? requestUrl.slice(0, pathStart(requestUrl))
}

/** The start of every path of the versioned API. */
export const API_PREFIX = '/v1'

const SLASH = 47
const QUESTION_MARK = 63

/** Whether a path is `/v1` or lies below it: the versioned API, which needs a key. */
export function isApiPath(path: string): boolean {
  return isApiPathAt(path, 0)
}

/** Whether the path of an absolute URL is an API path; read in place, without copying the path out. */
export function isApiUrl(url: string): boolean {
  return isApiPathAt(url, pathStart(url))
}

function isApiPathAt(text: string, start: number): boolean {
  if (!text.startsWith(API_PREFIX, start)) return false
  const next = text.charCodeAt(start + API_PREFIX.length)
  return Number.isNaN(next) || next === SLASH || next === QUESTION_MARK
}

/** Whether the path of an absolute URL is `path`, with or without a trailing "/" (as Elysia routes it). */
export function isPath(url: string, path: string): boolean {
  const start = pathStart(url)
  return url.startsWith(path, start) && pathEndsAt(url, start + path.length)
}

/**
 * Whether the path of an absolute URL is `parent` and one more non-empty
 * segment, with or without a trailing "/": what Elysia routes to `parent/:id`.
 */
export function isChildPath(url: string, parent: string): boolean {
  const start = pathStart(url) + parent.length + 1
  if (!url.startsWith(parent, start - parent.length - 1) || url.charCodeAt(start - 1) !== SLASH) return false
  let end = start
  while (end < url.length && url.charCodeAt(end) !== SLASH && url.charCodeAt(end) !== QUESTION_MARK) end++
  return end > start && pathEndsAt(url, end)
}

// The path ends at `at`: there, or after one trailing "/", comes the end or the query.
function pathEndsAt(url: string, at: number): boolean {
  const end = url.charCodeAt(at) === SLASH ? at + 1 : at
  return end === url.length || url.charCodeAt(end) === QUESTION_MARK
}
