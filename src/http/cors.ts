import { Elysia } from 'elysia'
import { andThen } from '../awaitable'
import type { CorsOrigins } from '../config'
import { asHandle } from './hand_over'
import { isApiUrl, isPath } from './url'

/** What a page on another origin may send: the methods of `/v1` and the request headers the service reads. */
export const CORS_ALLOW_METHODS = 'DELETE, GET, HEAD, PATCH, POST'
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id'

/** Every response header a client of `/v1` reads; a browser hides the others from a page on another origin. */
export const CORS_EXPOSE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Used',
  'X-RateLimit-Resource',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'ETag',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
  'WWW-Authenticate',
].join(', ')

/** How long a browser may keep a preflight's answer: two hours, the most Chromium keeps one. */
export const CORS_MAX_AGE_SECONDS = 7200

/** The public document is readable from any allowed origin too, so tools on other origins can load it. */
const OPENAPI_PATH = '/openapi.json'

/**
 * Lets pages on the allowed origins call `/v1` (and read `/openapi.json`):
 * a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 * is answered 204 here, before the guard, uncounted, since a browser never
 * sends a key with it; every other answer to an allowed origin, early
 * refusals included, names the origin and the headers the page may read.
 * An origin not allowed gets no CORS headers, as if CORS were off. With a
 * list, every answer says `Vary: Origin`, since it depends on the origin.
 */
export function cors(origins: CorsOrigins) {
  const any = origins === '*'
  const allowed = new Set(any ? [] : origins)
  const allowOrigin = (origin: string | null): string | undefined =>
    any ? '*' : origin !== null && allowed.has(origin) ? origin : undefined
  return new Elysia({ name: 'cors' }).wrap((handle) => (request: Request) => {
    if (!isApiUrl(request.url) && !isPath(request.url, OPENAPI_PATH)) return asHandle(handle)(request)
    const origin = request.headers.get('origin')
    const allowedOrigin = allowOrigin(origin)
    if (
      allowedOrigin !== undefined &&
      request.method === 'OPTIONS' &&
      request.headers.has('access-control-request-method')
    )
      return new Response(null, { status: 204, headers: preflightHeaders(allowedOrigin, any) })
    const finish = (response: Response): Response => {
      const headers = response.headers
      if (!any) headers.append('vary', 'Origin')
      if (allowedOrigin === undefined) return response
      headers.set('access-control-allow-origin', allowedOrigin)
      headers.set('access-control-expose-headers', CORS_EXPOSE_HEADERS)
      return response
    }
    return andThen(asHandle(handle)(request), finish)
  })
}

function preflightHeaders(allowedOrigin: string, any: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'access-control-allow-origin': allowedOrigin,
    'access-control-allow-methods': CORS_ALLOW_METHODS,
    'access-control-allow-headers': CORS_ALLOW_HEADERS,
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
  }
  if (!any) headers.vary = 'Origin'
  return headers
}
