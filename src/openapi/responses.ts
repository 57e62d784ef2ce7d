import type { DocumentDecoration } from 'elysia'
import type { OpenAPIV3_1 } from 'openapi-types'
import { ERROR_CODES, type ErrorCode, errorBody, type HttpError } from '../http/errors'
import { JSON_ONLY } from '../http/json_body'
import { MAX_BODY_BYTES } from '../http/limits'

type Header = OpenAPIV3_1.HeaderObject
type HeaderOrRef = Header | OpenAPIV3_1.ReferenceObject
type ResponseObject = OpenAPIV3_1.ResponseObject

/** A reference to a component of the document. */
export function ref(
  kind: 'schemas' | 'headers' | 'responses' | 'parameters',
  name: string,
): OpenAPIV3_1.ReferenceObject {
  return { $ref: `#/components/${kind}/${name}` }
}

const integerHeader = (description: string, example: number, minimum = 0): Header => ({
  description,
  schema: { type: 'integer', minimum },
  example,
})
const stringHeader = (description: string, example: string): Header => ({
  description,
  schema: { type: 'string' },
  example,
})

/** Every response header the API sends, as document components. */
export const HEADERS = {
  XRateLimitLimit: integerHeader(
    'The limit of the window described: the minute, or the UTC day when it has fewer requests left',
    60,
  ),
  XRateLimitRemaining: integerHeader('Requests left in that window', 59),
  XRateLimitReset: integerHeader('Unix time (seconds) at which that window ends', 1795262460),
  XRateLimitUsed: integerHeader('Requests counted in that window', 1),
  XRateLimitResource: {
    description: 'The window the X-RateLimit-* headers describe',
    schema: { type: 'string', enum: ['minute', 'day'] },
    example: 'minute',
  },
  RateLimitPolicy: stringHeader(
    "Both windows of the caller's quota (draft-ietf-httpapi-ratelimit-headers): q requests per w seconds",
    '"minute";q=60;w=60, "day";q=1000;w=86400',
  ),
  RateLimit: stringHeader(
    'The window the X-RateLimit-* headers describe (draft-ietf-httpapi-ratelimit-headers): r requests remaining, ' +
      't seconds until it ends',
    '"minute";r=59;t=34',
  ),
  XRequestId: stringHeader(
    "The request's id: the caller's X-Request-Id when it is a sane token, else a new one; also in the log line",
    '6f1c9a0e-2bq',
  ),
  RetryAfter: integerHeader('Whole seconds to wait before retrying, at least 1', 30, 1),
  WWWAuthenticate: stringHeader(
    'The bearer challenge (RFC 6750 §3): with `error="invalid_token"` for a presented bad key, `error="insufficient_scope"` on a 403',
    'Bearer realm="animal-store"',
  ),
  Location: stringHeader('The URL of the new animal', 'https://api.example.com/v1/pets/42'),
  OrderLocation: stringHeader('The URL of the new order', 'https://api.example.com/v1/store/orders/7'),
  IdempotentReplayed: stringHeader(
    '"true" when this 201 replays the create an earlier request with the same Idempotency-Key made',
    'true',
  ),
  NextLink: stringHeader(
    'Present when more animals follow: the next page (RFC 8288)',
    '<https://api.example.com/v1/pets?limit=20&after=20>; rel="next"',
  ),
  NextOrdersLink: stringHeader(
    'Present when more orders follow: the next page (RFC 8288)',
    '<https://api.example.com/v1/store/orders?limit=20&after=20>; rel="next"',
  ),
  ETag: stringHeader(
    'A strong tag of this representation (RFC 9110 §8.8.3): send it back in If-None-Match to get a 304, free, while it is unchanged',
    '"1b2k9x0q7f3d"',
  ),
  Deprecation: stringHeader('When the operation was deprecated (RFC 9745)', '@1795219200'),
  Sunset: stringHeader('When the operation goes away (RFC 8594)', 'Thu, 05 Dec 2030 00:00:00 GMT'),
  SuccessorLink: stringHeader(
    'The replacement operation, and the explanation of the deprecation (RFC 9745 §3)',
    '<https://api.example.com/v1/pets>; rel="successor-version", <https://api.example.com/docs#/pets/getPet>; rel="deprecation"; type="text/html"',
  ),
} satisfies Record<string, Header>

/** A reference to one of HEADERS. */
export function header(name: keyof typeof HEADERS): OpenAPIV3_1.ReferenceObject {
  return ref('headers', name)
}

/**
 * Headers on every response under /v1: the rate limit and the request id.
 * Success responses and the 429 list them all; the other errors list the
 * request id and say in their description that the rest come too, so an
 * expanded operation in Swagger UI is not a wall of the same eight rows.
 */
export const EVERY_RESPONSE_HEADERS = {
  'X-RateLimit-Limit': header('XRateLimitLimit'),
  'X-RateLimit-Remaining': header('XRateLimitRemaining'),
  'X-RateLimit-Reset': header('XRateLimitReset'),
  'X-RateLimit-Used': header('XRateLimitUsed'),
  'X-RateLimit-Resource': header('XRateLimitResource'),
  'RateLimit-Policy': header('RateLimitPolicy'),
  RateLimit: header('RateLimit'),
  'X-Request-Id': header('XRequestId'),
}

/** A success response with a JSON body and headers beyond EVERY_RESPONSE_HEADERS. */
export function jsonResponse(
  description: string,
  schema: OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject,
  headers: Record<string, HeaderOrRef> = {},
  example?: unknown,
): ResponseObject {
  return {
    description,
    headers: { ...EVERY_RESPONSE_HEADERS, ...headers },
    content: { 'application/json': example === undefined ? { schema } : { schema, example } },
  }
}

/** How one error response is shown: an example message, and what only this operation says. */
export interface ErrorResponseOptions {
  /** A message this error may carry, or the error itself (its message and the field it points at). */
  example: string | HttpError
  /** Instead of the meanings from ERROR_CODES, when this operation says it more exactly. */
  description?: string
  /** Headers beyond the request id (and beyond EVERY_RESPONSE_HEADERS with `allHeaders`). */
  headers?: Record<string, HeaderOrRef>
  /** List every rate-limit header, not only name them in the description: for the answers that are about them (429). */
  allHeaders?: boolean
}

/** Said by an error response that does not list the rate-limit headers it carries. */
const RATE_LIMIT_HEADERS_TOO = ' (with the X-RateLimit-* and RateLimit headers, as every /v1 answer)'

/**
 * The response of the Error codes `codes`, which share one status, described
 * from ERROR_CODES (code: meaning), with the first code in the example body.
 */
export function errorResponse(codes: [ErrorCode, ...ErrorCode[]], options: ErrorResponseOptions): ResponseObject {
  const [first] = codes
  const status = ERROR_CODES[first].status
  if (codes.some((code) => ERROR_CODES[code].status !== status)) throw new Error(`${codes.join(', ')} differ in status`)
  const description = options.description ?? codes.map((code) => `${code}: ${ERROR_CODES[code].meaning}`).join('; ')
  return {
    description: options.allHeaders ? description : `${description}${RATE_LIMIT_HEADERS_TOO}`,
    headers: options.allHeaders
      ? { ...EVERY_RESPONSE_HEADERS, ...options.headers }
      : { 'X-Request-Id': EVERY_RESPONSE_HEADERS['X-Request-Id'], ...options.headers },
    content: {
      'application/json': {
        schema: ref('schemas', 'Error'),
        example:
          typeof options.example === 'string'
            ? errorBody(first, options.example)
            : errorBody(first, options.example.message, options.example.pointer),
      },
    },
  }
}

/**
 * Error responses that several operations give, as document components.
 * One more, `InvalidRequest`, has an example the document takes from the
 * pets' page size, so docs/openapi.ts adds it (SharedResponse names it).
 */
export const RESPONSES = {
  Unauthorized: errorResponse(['unauthorized'], {
    example: 'The API key is unknown or revoked',
    headers: { 'WWW-Authenticate': header('WWWAuthenticate') },
  }),
  Forbidden: errorResponse(['insufficient_scope'], {
    example:
      'This API key is read-only: it may list and get animals, not create, change or delete them; use a read-write key',
    headers: { 'WWW-Authenticate': header('WWWAuthenticate') },
  }),
  PayloadTooLarge: errorResponse(['payload_too_large'], {
    example: `Request body must not exceed ${MAX_BODY_BYTES} bytes`,
  }),
  UnsupportedMediaType: errorResponse(['unsupported_media_type'], { example: JSON_ONLY.refusal }),
  TooManyRequests: errorResponse(['rate_limit_exceeded', 'key_banned'], {
    allHeaders: true,
    example: 'Rate limit of 60 requests per minute exceeded; retry after 12 s',
    headers: { 'Retry-After': header('RetryAfter') },
  }),
  NotModified: {
    description:
      'Not Modified: the If-None-Match tag still matches. No body; the ETag and the rate-limit headers, and it ' +
      'counts nothing against the quota; its X-RateLimit-* and RateLimit headers show the quota as before the request',
    headers: { 'X-Request-Id': EVERY_RESPONSE_HEADERS['X-Request-Id'], ETag: header('ETag') },
  },
  InternalError: errorResponse(['internal_error'], { example: 'Internal server error' }),
  Unavailable: errorResponse(['unavailable', 'storage_unavailable', 'rate_limiter_unavailable'], {
    example: 'The database does not answer; retry shortly',
    headers: { 'Retry-After': header('RetryAfter') },
  }),
} satisfies Record<string, ResponseObject>

/** Request parameters that several operations take, as document components. */
export const PARAMETERS = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'ETags of representations the client holds (a list, or `*`); when one matches, the answer is a 304 without ' +
      'a body, which costs no quota',
    schema: { type: 'string' },
    example: '"1b2k9x0q7f3d"',
  },
} satisfies Record<string, OpenAPIV3_1.ParameterObject>

/** The name of a shared response component: one of RESPONSES, or `InvalidRequest`. */
export type SharedResponse = keyof typeof RESPONSES | 'InvalidRequest'

/** A reference to a shared response component. */
export function response(name: SharedResponse): OpenAPIV3_1.ReferenceObject {
  return ref('responses', name)
}

/** One of RESPONSES, inline, with more headers: for an operation that adds headers to a shared answer. */
export function responseWithHeaders(
  name: keyof typeof RESPONSES,
  headers: Record<string, HeaderOrRef>,
): ResponseObject {
  const shared = RESPONSES[name]
  return { ...shared, headers: { ...shared.headers, ...headers } }
}

/**
 * An operation's own responses by status, for its route's `detail.responses`,
 * where the generator finds them (Elysia types `detail` as OpenAPI 3.0; the
 * document is 3.1, whose objects these are).
 */
export function operationResponses(
  responses: Record<number, ResponseObject | OpenAPIV3_1.ReferenceObject>,
): NonNullable<DocumentDecoration['responses']> {
  return responses as NonNullable<DocumentDecoration['responses']>
}
