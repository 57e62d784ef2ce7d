import { Elysia } from 'elysia'
import { errorBody } from '../errors'
import { pathStart } from './url'

/** The longest request target (path and query) accepted, in bytes (8 KiB). */
export const MAX_TARGET_BYTES = 8 * 1024
/** The most header bytes accepted (names, values and separators; 16 KiB). */
export const MAX_HEADER_BYTES = 16 * 1024
/**
 * What Bun's own parser lets through (`--max-http-header-size`, set by
 * `npm start`, the tests and the compiled binary): above the app's limits, so
 * requests between them get the JSON 414/431 from the app; heads above it
 * get Bun's bare 431.
 */
export const BUN_MAX_HEAD_BYTES = 64 * 1024

/**
 * Refuses a request target over 8 KiB (414) and headers over 16 KiB (431).
 * Registered after the guard, so a refused request under /v1 is still
 * authenticated first and carries the rate-limit headers.
 */
export function requestBounds() {
  return new Elysia({ name: 'request-bounds' }).onRequest(({ request, set }) => {
    const url = request.url
    const target = url.length - pathStart(url)
    if (target > MAX_TARGET_BYTES) {
      set.status = 414
      return errorBody(
        414,
        'uri_too_long',
        `The request target is ${target} bytes; at most ${MAX_TARGET_BYTES} are accepted`,
      )
    }
    let headerBytes = 0
    request.headers.forEach((value, name) => {
      headerBytes += name.length + value.length + 4 // ": " and CRLF
    })
    if (headerBytes > MAX_HEADER_BYTES) {
      set.status = 431
      return errorBody(
        431,
        'headers_too_large',
        `The request headers are ${headerBytes} bytes; at most ${MAX_HEADER_BYTES} are accepted`,
      )
    }
  })
}
