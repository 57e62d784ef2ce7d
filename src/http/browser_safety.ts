import type { ResponseStep } from './every_response'
import { isApiUrl } from './url'

/** `Strict-Transport-Security` for a service that speaks HTTPS only: browsers use HTTPS for a year (RFC 6797). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000'

/** Answers that may be kept only to be revalidated (they carry an ETag), by the client alone. */
const REVALIDATE = 'private, no-cache'
/** Answers that must not be kept at all: they hold a caller's quota, an error, a create. */
const NEVER_STORE = 'no-store'

/**
 * A step around every response (http/every_response.ts), early refusals included:
 * `X-Content-Type-Options: nosniff` on all of them (a browser never guesses
 * a type the service did not send), and on `/v1` answers a `Cache-Control`
 * unless a route chose one: `private, no-cache` with an `ETag` (a cache may
 * keep it and must ask with `If-None-Match`), else `no-store`; over HTTPS,
 * `Strict-Transport-Security` on every response.
 */
export function browserSafety({ https }: { https: boolean }): ResponseStep {
  return {
    start: () => undefined,
    finish(request, response) {
      const headers = response.headers
      headers.set('x-content-type-options', 'nosniff')
      if (https) headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY)
      if (isApiUrl(request.url) && !headers.has('cache-control'))
        headers.set('cache-control', headers.has('etag') ? REVALIDATE : NEVER_STORE)
      return response
    },
  }
}
