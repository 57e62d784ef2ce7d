import { containsApiKey, redactApiKeys } from '../key_shape'
import type { Logger } from '../log'
import type { Callers } from './callers'
import { addressText, type ClientAddress } from './client_address'
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

/** The longest User-Agent a request line keeps; the rest is cut, and said to be. */
export const MAX_LOGGED_USER_AGENT = 256

/**
 * A User-Agent as a request line keeps it: control characters (C0, DEL, C1)
 * and the Unicode line separators written as `\u` escapes, so a line cannot
 * be forged or broken, at most MAX_LOGGED_USER_AGENT characters, and any
 * key-shaped text redacted.
 */
export function loggedUserAgent(header: string | null): string | undefined {
  if (header === null) return undefined
  const cut = header.length > MAX_LOGGED_USER_AGENT ? `${header.slice(0, MAX_LOGGED_USER_AGENT)}…(cut)` : header
  const escaped = cut.replace(
    /[\p{Cc}\u2028\u2029]/gu,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
  return redactApiKeys(escaped)
}

/** What the request log needs. */
export interface RequestLogOptions {
  logger: Logger
  /** Which key each request authenticated with, as the guard noted it. */
  callers: Callers
  /** The address a request is counted under (the guard's rule: TRUST_PROXY's first hop, else the socket's peer). */
  clientOf: (request: Request) => ClientAddress | undefined
}

/**
 * A step around every response (http/every_response.ts), including those that hooks
 * answer early (401, 429): it puts `X-Request-Id` on the response and writes
 * one log line with method, path, status, duration, request id and key id.
 */
export function requestLog({
  logger,
  callers,
  clientOf,
}: RequestLogOptions): ResponseStep<{ started: number; requestId: string }> {
  const logging = logger.enabled('info')
  return {
    start: (request) => ({
      started: logging ? performance.now() : 0,
      requestId: requestIdFor(request.headers.get('x-request-id')),
    }),
    headers(headers, _request, { requestId }) {
      headers['x-request-id'] = requestId
    },
    finish(request, response, { started, requestId }) {
      if (!logging) return response
      logger.info('request', {
        method: request.method,
        path: loggedPath(request.url),
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        requestId,
        keyId: callers.keyIdOf(request),
        client: clientText(clientOf(request)),
        userAgent: loggedUserAgent(request.headers.get('user-agent')),
      })
      return response
    },
  }
}

function clientText(address: ClientAddress | undefined): string | undefined {
  return address === undefined ? undefined : addressText(address)
}

/**
 * A request's path as its line keeps it: as sent, unless it hides a key in
 * percent-encoding (`ask%5F...`), which the logger's redaction of key shapes
 * would not see; then decoded, with the key redacted.
 */
export function loggedPath(url: string): string {
  const path = pathOf(url)
  if (!path.includes('%')) return path
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    return path
  }
  return containsApiKey(decoded) ? redactApiKeys(decoded) : path
}
