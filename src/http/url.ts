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
