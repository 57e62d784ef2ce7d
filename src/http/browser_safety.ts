import { onEveryResponse } from './every_response'
import { isApiUrl } from './url'

/** Answers that may be kept only to be revalidated (they carry an ETag), by the client alone. */
const REVALIDATE = 'private, no-cache'
/** Answers that must not be kept at all: they hold a caller's quota, an error, a create. */
const NEVER_STORE = 'no-store'

/**
 * Wraps the whole app, so it sees every response, early refusals included:
 * `X-Content-Type-Options: nosniff` on all of them (a browser never guesses
 * a type the service did not send), and on `/v1` answers a `Cache-Control`
 * unless a route chose one: `private, no-cache` with an `ETag` (a cache may
 * keep it and must ask with `If-None-Match`), else `no-store`.
 */
export function browserSafety() {
  return onEveryResponse(
    'browser-safety',
    () => undefined,
    (request, response) => {
      const headers = response.headers
      headers.set('x-content-type-options', 'nosniff')
      if (isApiUrl(request.url) && !headers.has('cache-control'))
        headers.set('cache-control', headers.has('etag') ? REVALIDATE : NEVER_STORE)
      return response
    },
  )
}
