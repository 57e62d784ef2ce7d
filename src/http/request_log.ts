import { containsApiKey } from '../key_shape'
import type { Logger } from '../log'
import type { Callers } from './callers'
import type { ResponseStep } from './every_response'
import { pathOf } from './url'

// Kept when a client or proxy sends one of these; anything else is replaced.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

// A new id is this process's random prefix and a counter: unique, and cheaper than a UUID per request.
const ID_PREFIX = `${crypto.randomUUID().slice(0, 8)}-`
let issued = 0

/** The request id to answer with: the caller's when it is a sane token (and not a key), else a new one. */
function requestIdFor(header: string | null): string {
  return header !== null && SANE_REQUEST_ID.test(header) && !containsApiKey(header)
    ? header
    : ID_PREFIX + (++issued).toString(36)
}

/** What the request log needs. */
export interface RequestLogOptions {
  logger: Logger
  /** Which key each request authenticated with, as the guard noted it. */
  callers: Callers
}

/**
 * A step around every response (http/every_response.ts), including those that hooks
 * answer early (401, 429): it puts `X-Request-Id` on the response and writes
 * one log line with method, path, status, duration, request id and key id.
 */
export function requestLog({
  logger,
  callers,
}: RequestLogOptions): ResponseStep<{ started: number; requestId: string }> {
  const logging = logger.enabled('info')
  return {
    start: (request) => ({
      started: logging ? performance.now() : 0,
      requestId: requestIdFor(request.headers.get('x-request-id')),
    }),
    finish(request, response, { started, requestId }) {
      response.headers.set('x-request-id', requestId)
      if (!logging) return response
      logger.info('request', {
        method: request.method,
        path: pathOf(request.url),
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        requestId,
        keyId: callers.keyIdOf(request),
      })
      return response
    },
  }
}
