import { errorBody } from './errors'

/**
 * What the listener does with a request's `Host` before the app sees it
 * (RFC 9112 §3.2): two `Host` fields (Bun joins them with ", ") or one that
 * is not a valid host (Bun then gives the request a URL without scheme and
 * host) are answered 400; a request without `Host` (HTTP/1.0 allows it) is
 * given `base()`, the service's own address (asked only then), so routing, `Location` and
 * `Link` come out right. Over HTTPS a host shorter than three characters is
 * refused too: Elysia finds the path at a fixed offset that assumes it.
 */
export function checkHost(request: Request, base: () => string, https: boolean): Request | Response {
  const host = request.headers.get('host')
  if (host?.includes(',')) return badHost('Send exactly one Host header')
  if (request.url.charCodeAt(0) === SLASH) {
    if (host !== null) return badHost('The Host header is not a valid host[:port]')
    return new Request(base() + request.url, request)
  }
  if (https && request.url.indexOf('/', HTTPS_PREFIX_LENGTH) < HTTPS_PREFIX_LENGTH + 3)
    return badHost('The Host header must name this service')
  return request
}

const SLASH = 47
const HTTPS_PREFIX_LENGTH = 'https://'.length

function badHost(message: string): Response {
  return Response.json(errorBody('invalid_request', message), {
    status: 400,
    headers: { 'x-content-type-options': 'nosniff', connection: 'close' },
  })
}
