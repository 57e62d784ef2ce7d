import type { ResponseStep } from './every_response'
import { isApiUrl } from './url'

/** `Strict-Transport-Security` for a service that speaks HTTPS only: browsers use HTTPS for a year (RFC 6797). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000'

/** Answers that must not be kept at all: they hold a caller's quota, an error, a create. */
const NEVER_STORE = 'no-store'

/**
 * A step around every response (http/every_response.ts), early refusals included:
 * `X-Content-Type-Options: nosniff` on all of them (a browser never guesses
 * a type the service did not send), and on `/v1` answers `Cache-Control:
 * no-store` unless the route chose otherwise (an answer with an `ETag` says
 * `private, no-cache`: http/conditional.ts, `tagAnswer`); over HTTPS,
 * `Strict-Transport-Security` on every response.
 */
export function browserSafety({ https }: { https: boolean }): ResponseStep {
  return {
    start: () => undefined,
    headers(headers, request) {
      headers['x-content-type-options'] = 'nosniff'
      if (https) headers['strict-transport-security'] = STRICT_TRANSPORT_SECURITY
      if (isApiUrl(request.url)) headers['cache-control'] = NEVER_STORE
    },
  }
}
