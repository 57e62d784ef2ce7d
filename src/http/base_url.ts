/**
 * The absolute base that `Link` and `Location` headers are built on: the
 * configured public URL, or else the scheme and host the request came to.
 */
export function baseUrl(publicUrl: string | undefined, requestUrl: string): string {
  if (publicUrl !== undefined) return publicUrl
  // The path starts at the first "/" after "scheme://".
  const pathStart = requestUrl.indexOf('/', requestUrl.indexOf('//') + 2)
  return pathStart === -1 ? requestUrl : requestUrl.slice(0, pathStart)
}
