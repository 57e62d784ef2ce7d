import { type Static, Type } from '@sinclair/typebox'
import { redactApiKeys } from '../key_shape'
import { kib, MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_HEADER_FIELDS, MAX_TARGET_BYTES } from './limits'

/**
 * Every Error code the API answers with: its HTTP status and what it means.
 * The one list: `HttpError` takes only these codes, and the OpenAPI document
 * (the `Error.code` enum, each documented error response) is built from it.
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    meaning:
      'a query, path or body value fails validation, or the body is malformed, empty, not UTF-8 or not a JSON object',
  },
  unauthorized: { status: 401, meaning: 'the API key is missing, malformed, unknown, revoked or expired' },
  insufficient_scope: {
    status: 403,
    meaning: 'the API key is read-only and the request would write (a create, a change, a delete)',
  },
  not_found: {
    status: 404,
    meaning:
      "no animal has this id, no order of the key's line has this id, or (with a valid key) no resource has this path",
  },
  method_not_allowed: { status: 405, meaning: 'the path exists, not with this method (`Allow` lists the methods)' },
  request_timeout: {
    status: 408,
    meaning: 'the body stopped before its end: the client stalled or went away (it is logged; nobody reads the answer)',
  },
  invalid_transition: {
    status: 409,
    meaning:
      "the status cannot move as asked: a pet's from available to pending or sold, from pending to available or sold (sold is final); an order's from placed to delivered or cancelled (both final)",
  },
  pet_not_available: {
    status: 409,
    meaning: 'the animal of a new order is not available: it is reserved (pending) or sold',
  },
  pet_has_open_order: {
    status: 409,
    meaning: 'the animal has a placed order: its status moves only through that order (deliver or cancel it)',
  },
  pet_has_orders: {
    status: 409,
    meaning: 'an order names the animal, so it is not deleted: the order history keeps it',
  },
  precondition_failed: {
    status: 412,
    meaning: 'If-Match names no ETag of the resource as it is now: it changed since; read it again',
  },
  payload_too_large: { status: 413, meaning: `the body is over ${MAX_BODY_BYTES} bytes (${kib(MAX_BODY_BYTES)})` },
  uri_too_long: { status: 414, meaning: `the request target (path and query) is over ${kib(MAX_TARGET_BYTES)}` },
  unsupported_media_type: {
    status: 415,
    meaning: 'the body is not application/json (parameters such as a charset are fine)',
  },
  idempotency_key_reused: { status: 422, meaning: 'this Idempotency-Key was already used with a different body' },
  rate_limit_exceeded: {
    status: 429,
    meaning: 'the minute or the day is used up until Retry-After seconds have passed',
  },
  key_banned: { status: 429, meaning: 'banned for hammering on after 429s, until Retry-After seconds have passed' },
  headers_too_large: {
    status: 431,
    meaning: `the request headers (names, values, separators) are over ${kib(MAX_HEADER_BYTES)}, or more than ${MAX_HEADER_FIELDS} fields`,
  },
  internal_error: { status: 500, meaning: 'something unexpected (details are logged, never sent)' },
  unavailable: { status: 503, meaning: 'the database does not answer for now, retry after Retry-After seconds' },
  storage_unavailable: {
    status: 503,
    meaning:
      "the server's storage is failing (full, read-only, locked, damaged); nothing was written, retry after Retry-After seconds",
  },
  rate_limiter_unavailable: {
    status: 503,
    meaning:
      'the rate limiter cannot be asked and the service refuses rather than guess, retry after Retry-After seconds',
  },
} satisfies Record<string, { status: number; meaning: string }>

/** A code of ERROR_CODES. */
export type ErrorCode = keyof typeof ERROR_CODES

/** The most `errors` entries one answer lists (a validation stops counting there). */
export const MAX_LISTED_ERRORS = 64

/** One violation of a validation failure: where, and what is wrong there. */
export const ErrorDetail = Type.Object(
  {
    param: Type.String({ description: 'The body property, query parameter, path parameter or header at fault' }),
    message: Type.String({ description: 'What is wrong with it' }),
  },
  { additionalProperties: false },
)
export type ErrorDetail = Static<typeof ErrorDetail>

/** The Error object every failure answers with: `status` equals the HTTP status. */
export const ErrorSchema = Type.Object(
  {
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: Object.keys(ERROR_CODES),
      description: 'Machine-readable error code; the table in the API description says when each is sent',
      examples: ['invalid_request'],
    }),
    message: Type.String({ description: 'What went wrong, naming the offending field, parameter or header' }),
    status: Type.Integer({ minimum: 400, maximum: 599, description: 'The HTTP status code of the response' }),
    param: Type.Optional(
      Type.String({
        description:
          "The body property, query parameter, path parameter or header at fault, when one is (as Stripe's " +
          '`param`): a form can mark its field',
        examples: ['name'],
      }),
    ),
    errors: Type.Optional(
      Type.Array(ErrorDetail, {
        maxItems: MAX_LISTED_ERRORS,
        description:
          'A validation failure lists every field at fault here, one entry each, in a stable order (unknown ' +
          "properties first, then the schema's order); the first is the one `message` and `param` name",
      }),
    ),
  },
  { additionalProperties: false },
)
export type ErrorBody = Static<typeof ErrorSchema>

/** Where a failure points, beyond its code and message: the field at fault, and for a validation all of them. */
export interface ErrorPointer {
  param?: string
  errors?: readonly ErrorDetail[]
}

/**
 * Builds the Error body of `code`; key order follows the specification, then
 * `param` and `errors` when given. A key-shaped text in a message is redacted.
 */
export function errorBody(code: ErrorCode, message: string, pointer: ErrorPointer = {}): ErrorBody {
  const body: ErrorBody = { code, message: redactApiKeys(message), status: ERROR_CODES[code].status }
  if (pointer.param !== undefined) body.param = redactApiKeys(pointer.param)
  if (pointer.errors !== undefined)
    body.errors = pointer.errors.map(({ param, message }) => ({
      param: redactApiKeys(param),
      message: redactApiKeys(message),
    }))
  return body
}

/** The part of Elysia's context a hook writes its answer's status and headers to. */
export interface ResponseSet {
  headers: Record<string, string | number>
  status?: number | string
}

/**
 * An early answer from a hook: sets the status of `code` on the response and
 * returns the Error body for the hook to return.
 */
export function refuse(
  set: { status?: number | string },
  code: ErrorCode,
  message: string,
  pointer?: ErrorPointer,
): ErrorBody {
  const body = errorBody(code, message, pointer)
  set.status = body.status
  return body
}

/** What an HttpError may carry besides its code and message. */
export interface HttpErrorOptions extends ErrorPointer {
  /** Headers the answer needs (`Allow`, `Retry-After`). */
  headers?: Readonly<Record<string, string>>
}

/** A failure the client is told about: its Error code (which fixes the status), the field at fault, any headers it needs. */
export class HttpError extends Error {
  readonly status: number
  readonly headers: Readonly<Record<string, string>> | undefined
  readonly pointer: ErrorPointer

  constructor(
    readonly code: ErrorCode,
    message: string,
    { headers, ...pointer }: HttpErrorOptions = {},
  ) {
    super(message)
    this.name = 'HttpError'
    this.status = ERROR_CODES[code].status
    this.headers = headers
    this.pointer = pointer
  }
}
