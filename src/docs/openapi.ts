import { toOpenAPISchema } from '@elysiajs/openapi'
import type { AnyElysia } from 'elysia'
import type { OpenAPIV3_1 } from 'openapi-types'
import { ErrorSchema } from '../errors'
import { MAX_BODY_BYTES } from '../http/json_body'
import { NewPet, Pet, PetStatus } from '../pets/schema'

type Document = OpenAPIV3_1.Document
type Operation = OpenAPIV3_1.OperationObject
type Schema = OpenAPIV3_1.SchemaObject

/** The prefix every documented path has; the `servers` entry carries it instead. */
const API_PREFIX = '/v1'

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` })

/** Headers on every response under /v1: the rate limit and the request id. */
const EVERY_RESPONSE_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'XRateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'XRateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'XRateLimitReset'),
  'X-Request-Id': ref('headers', 'XRequestId'),
}

const GET_PET_HEADERS = {
  Deprecation: ref('headers', 'Deprecation'),
  Sunset: ref('headers', 'Sunset'),
  Link: ref('headers', 'SuccessorLink'),
}

/** The responses each operation can give, beyond what its route schemas say. */
const OPERATION_RESPONSES: Record<string, Record<string, unknown>> = {
  listPets: {
    '200': {
      description: 'A page of animals in ascending id order',
      headers: { ...EVERY_RESPONSE_HEADERS, Link: ref('headers', 'NextLink') },
      content: { 'application/json': { schema: { type: 'array', items: ref('schemas', 'Pet') } } },
    },
    '400': ref('responses', 'InvalidRequest'),
    '401': ref('responses', 'Unauthorized'),
    '429': ref('responses', 'TooManyRequests'),
    '500': ref('responses', 'InternalError'),
    '503': ref('responses', 'RateLimiterUnavailable'),
  },
  createPet: {
    '201': {
      description: 'The stored animal, with the id the service assigned',
      headers: {
        ...EVERY_RESPONSE_HEADERS,
        Location: ref('headers', 'Location'),
        'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
      },
      content: { 'application/json': { schema: ref('schemas', 'Pet') } },
    },
    '400': ref('responses', 'InvalidRequest'),
    '401': ref('responses', 'Unauthorized'),
    '413': ref('responses', 'PayloadTooLarge'),
    '415': ref('responses', 'UnsupportedMediaType'),
    '422': errorResponse(
      'idempotency_key_reused: this Idempotency-Key was already used with a different body',
      'idempotency_key_reused',
      422,
      'This Idempotency-Key was already used with a different body; use a new key for a new pet',
    ),
    '429': ref('responses', 'TooManyRequests'),
    '500': ref('responses', 'InternalError'),
    '503': ref('responses', 'RateLimiterUnavailable'),
  },
  getPet: {
    '200': {
      description: 'The animal',
      headers: { ...EVERY_RESPONSE_HEADERS, ...GET_PET_HEADERS },
      content: { 'application/json': { schema: ref('schemas', 'Pet') } },
    },
    '400': errorResponse(
      'invalid_request: the id is not an integer from 1 to 2^53 - 1',
      'invalid_request',
      400,
      '"petId" must be an integer from 1 to 9007199254740991',
      GET_PET_HEADERS,
    ),
    '401': ref('responses', 'Unauthorized'),
    '404': errorResponse(
      'not_found: no animal has this id',
      'not_found',
      404,
      'Pet 42 does not exist',
      GET_PET_HEADERS,
    ),
    '429': ref('responses', 'TooManyRequests'),
    '500': ref('responses', 'InternalError'),
    '503': ref('responses', 'RateLimiterUnavailable'),
  },
}

/** What only the document says; the rest comes from the routes. */
export interface OpenApiOptions {
  /** Public base URL without `/v1`; without it the server is the relative `/v1`. */
  publicUrl?: string
}

/**
 * The OpenAPI 3.1 document of the `/v1` interface. Parameters and the request
 * body come from the routes' own TypeBox schemas through @elysiajs/openapi's
 * generator; the components are those same schema objects; the responses and
 * headers, which no route schema describes, come from the table above.
 */
export function buildOpenApiDocument(app: AnyElysia, { publicUrl }: OpenApiOptions = {}): Document {
  const generated = toOpenAPISchema(app, undefined, undefined, undefined, '3.1.0')
  const paths: OpenAPIV3_1.PathsObject = {}
  for (const [path, item] of Object.entries(generated.paths)) {
    if (!path.startsWith(`${API_PREFIX}/`) || !item) continue
    for (const operation of Object.values(item) as Operation[]) completeOperation(operation)
    paths[path.slice(API_PREFIX.length)] = item as OpenAPIV3_1.PathItemObject
  }
  return useStatusRef({
    openapi: '3.1.0',
    info: {
      title: 'Animal Store',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [
      {
        url: `${publicUrl ?? ''}${API_PREFIX}`,
        description: publicUrl ? 'This service' : 'This service, relative to this document',
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets', description: 'The animals of the store' }],
    paths,
    components: {
      schemas: {
        NewPet: plain(NewPet),
        Pet: plain(Pet),
        PetStatus: plain(PetStatus),
        Error: plain(ErrorSchema),
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`ask_...`) as the bearer token: `Authorization: Bearer ask_...`',
        },
      },
      headers: HEADERS,
      responses: RESPONSES,
    },
  })
}

function completeOperation(operation: Operation): void {
  const id = operation.operationId
  if (!id || !(id in OPERATION_RESPONSES)) throw new Error(`No documented responses for operation ${id}`)
  operation.security = [{ bearerAuth: [] }]
  // Elysia sees header names lower-cased; the document spells them as people do.
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]) {
    if (parameter.in === 'header')
      parameter.name = parameter.name.replace(
        /(^|-)([a-z])/g,
        (_, dash: string, letter: string) => dash + letter.toUpperCase(),
      )
  }
  operation.responses = OPERATION_RESPONSES[id] as OpenAPIV3_1.ResponsesObject
  // The generator cannot see through a custom parse hook, so it leaves the body's media type empty.
  if (operation.requestBody) {
    operation.requestBody = {
      required: true,
      description: `A JSON object of at most ${MAX_BODY_BYTES} bytes`,
      content: { 'application/json': { schema: ref('schemas', 'NewPet') } },
    }
  }
}

/** A TypeBox schema as plain JSON Schema: TypeBox's symbol keys dropped. */
function plain(schema: object): Schema {
  return JSON.parse(JSON.stringify(schema)) as Schema
}

/** Every inline copy of the status enum becomes a reference to the one PetStatus component. */
function useStatusRef(document: Document): Document {
  const status = JSON.stringify(plain(PetStatus))
  return JSON.parse(JSON.stringify(document), (key, value) => {
    if (key !== 'PetStatus' && value && typeof value === 'object' && JSON.stringify(value) === status)
      return ref('schemas', 'PetStatus')
    return value
  }) as Document
}

function errorResponse(
  description: string,
  code: string,
  status: number,
  message: string,
  extraHeaders: Record<string, OpenAPIV3_1.ReferenceObject | Header> = {},
): OpenAPIV3_1.ResponseObject {
  return {
    description,
    headers: { ...EVERY_RESPONSE_HEADERS, ...extraHeaders },
    content: { 'application/json': { schema: ref('schemas', 'Error'), example: { code, message, status } } },
  }
}

type Header = OpenAPIV3_1.HeaderObject
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

const HEADERS = {
  XRateLimitLimit: integerHeader(
    'The limit of the window described: the minute, or the UTC day when it has fewer requests left',
    60,
  ),
  XRateLimitRemaining: integerHeader('Requests left in that window', 59),
  XRateLimitReset: integerHeader('Unix time (seconds) at which that window ends', 1795262460),
  XRequestId: stringHeader(
    "The request's id: the caller's X-Request-Id when it is a sane token, else a new one; also in the log line",
    '6f1c9a0e-2bq',
  ),
  RetryAfter: integerHeader('Whole seconds to wait before retrying, at least 1', 30, 1),
  WWWAuthenticate: stringHeader('The bearer challenge (RFC 6750)', 'Bearer realm="animal-store"'),
  Location: stringHeader('The URL of the new animal', 'https://api.example.com/v1/pets/42'),
  IdempotentReplayed: stringHeader(
    '"true" when this 201 replays the create an earlier request with the same Idempotency-Key made',
    'true',
  ),
  NextLink: stringHeader(
    'Present when more animals follow: the next page (RFC 8288)',
    '<https://api.example.com/v1/pets?limit=20&after=20>; rel="next"',
  ),
  Deprecation: stringHeader('When the operation was deprecated (RFC 9745)', '@1795219200'),
  Sunset: stringHeader('When the operation goes away (RFC 8594)', 'Thu, 05 Dec 2030 00:00:00 GMT'),
  SuccessorLink: stringHeader(
    'The replacement operation',
    '<https://api.example.com/v1/pets>; rel="successor-version"',
  ),
}

const RESPONSES = {
  InvalidRequest: errorResponse(
    'invalid_request: a query, path or body value fails validation, or the body is not a JSON object',
    'invalid_request',
    400,
    '"limit" must be an integer from 1 to 100',
  ),
  Unauthorized: errorResponse(
    'unauthorized: the API key is missing, malformed, unknown or revoked',
    'unauthorized',
    401,
    'The API key is unknown or revoked',
    {
      'WWW-Authenticate': ref('headers', 'WWWAuthenticate'),
    },
  ),
  PayloadTooLarge: errorResponse(
    `payload_too_large: the body is over ${MAX_BODY_BYTES} bytes`,
    'payload_too_large',
    413,
    `Request body must not exceed ${MAX_BODY_BYTES} bytes`,
  ),
  UnsupportedMediaType: errorResponse(
    'unsupported_media_type: the body is not application/json',
    'unsupported_media_type',
    415,
    'Content-Type must be application/json',
  ),
  TooManyRequests: errorResponse(
    'rate_limit_exceeded, or key_banned after hammering: wait Retry-After seconds',
    'rate_limit_exceeded',
    429,
    'Rate limit of 60 requests per minute exceeded; retry after 12 s',
    { 'Retry-After': ref('headers', 'RetryAfter') },
  ),
  InternalError: errorResponse(
    'internal_error: something unexpected; details are logged, never sent',
    'internal_error',
    500,
    'Internal server error',
  ),
  RateLimiterUnavailable: errorResponse(
    'rate_limiter_unavailable: only with REDIS_URL and REDIS_FAILURE_MODE=closed, while Redis does not answer',
    'rate_limiter_unavailable',
    503,
    'The rate limiter cannot be reached; retry shortly',
    { 'Retry-After': ref('headers', 'RetryAfter') },
  ),
}

const DESCRIPTION = `Manages the animals held in a store.

Every operation needs an API key as a bearer token. Every response carries \`X-RateLimit-Limit\`,
\`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`: per key, a clock-minute and a UTC-day window
(Free 60/1,000, Pro 300/10,000, Business 1,000/100,000, Enterprise custom). Over the limit: 429 with
\`Retry-After\`; hammering after 429s bans the key for 15 minutes (\`key_banned\`).

Every error is an \`Error\` object whose \`status\` equals the HTTP status. A known path called with
another method answers 405 \`method_not_allowed\` with an \`Allow\` header.`
