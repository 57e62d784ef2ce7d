import { Elysia } from 'elysia'
import { HttpError } from './errors'
import { MAX_HEADER_BYTES, MAX_HEADER_FIELDS, MAX_TARGET_BYTES } from './limits'
import { pathStart } from './url'

/**
 * Refuses a request target over MAX_TARGET_BYTES (414) and headers over
 * MAX_HEADER_FIELDS fields or MAX_HEADER_BYTES (431). Registered after the guard, so a refused request
 * under /v1 is still authenticated first and carries the rate-limit headers;
 * thrown, so the error mapper answers it and settles its quota like any 4xx.
 */
export function requestBounds() {
  return new Elysia({ name: 'request-bounds' }).onRequest(({ request }) => {
    const url = request.url
    const target = url.length - pathStart(url)
    if (target > MAX_TARGET_BYTES) {
      throw new HttpError(
        'uri_too_long',
        `The request target is ${target} bytes; at most ${MAX_TARGET_BYTES} are accepted`,
      )
    }
    let headerBytes = 0
    let fields = 0
    request.headers.forEach((value, name) => {
      headerBytes += name.length + value.length + 4 // ": " and CRLF
      fields++
    })
    if (fields > MAX_HEADER_FIELDS) {
      const message = `The request has ${fields} header fields; at most ${MAX_HEADER_FIELDS} are accepted`
      throw new HttpError('headers_too_large', message)
    }
    if (headerBytes > MAX_HEADER_BYTES) {
      const message = `The request headers are ${headerBytes} bytes; at most ${MAX_HEADER_BYTES} are accepted`
      throw new HttpError('headers_too_large', message)
    }
  })
}
