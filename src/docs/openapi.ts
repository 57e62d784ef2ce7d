import { toOpenAPISchema } from '@elysiajs/openapi'
import type { AnyElysia } from 'elysia'
import type { OpenAPIV3_1 } from 'openapi-types'
import { ErrorSchema, HttpError } from '../http/errors'
import { API_PREFIX } from '../http/url'
import { errorResponse, HEADERS, PARAMETERS, RESPONSES, ref, response, type SharedResponse } from '../openapi/responses'
import { ORDER_REQUEST_BODIES } from '../orders/operations'
import { NewOrder, Order, OrderPatch, OrderStatus } from '../orders/schema'
import { REQUEST_BODIES } from '../pets/operations'
import { Inventory, MAX_LIMIT, NewPet, Pet, PetPatch, PetStatus } from '../pets/schema'
import { RateLimitStatus } from '../ratelimit/schema'
import { VERSION } from '../version'
import { API_DESCRIPTION } from './api_description'

type Document = OpenAPIV3_1.Document
type Operation = OpenAPIV3_1.OperationObject
type Schema = OpenAPIV3_1.SchemaObject

/** What every operation under /v1 may answer besides its own responses: the guard's refusals, a 500 and a 503. */
const GUARD_RESPONSES = {
  401: response('Unauthorized'),
  429: response('TooManyRequests'),
  500: response('InternalError'),
  503: response('Unavailable'),
}

/** The shared 400's example: a validation that found two parameters at fault names both in `errors`. */
const INVALID_LIST_QUERY = (() => {
  const errors = [
    { param: 'limit', message: `"limit" must be an integer from 1 to ${MAX_LIMIT}` },
    { param: 'status', message: '"status" must be one of available, pending, sold' },
  ]
  return new HttpError('invalid_request', errors[0]!.message, { param: errors[0]!.param, errors })
})()

/** What only the document says; the rest comes from the routes. */
export interface OpenApiOptions {
  /** The service's base URL without `/v1` (PUBLIC_URL, else the request's scheme and host), as `Link` and `Location` use it. */
  baseUrl: string
}

/**
 * The OpenAPI 3.1 document of the `/v1` interface. Parameters, the request
 * body and each operation's own responses come from its route (TypeBox
 * schemas and `detail`) through @elysiajs/openapi's generator; this adds
 * what every operation shares and the components.
 */
export function buildOpenApiDocument(app: AnyElysia, { baseUrl }: OpenApiOptions): Document {
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
      version: VERSION,
      description: API_DESCRIPTION,
      // Each deployment has its own operator; the service cannot know their address, only say who they are.
      contact: { name: 'The operator of this deployment, who issues its API keys' },
    },
    servers: serversOf(baseUrl),
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'pets', description: 'The animals of the store' },
      {
        name: 'store',
        description:
          'The store as a whole (experimental): how many animals it holds by status, and the orders that sell ' +
          'them. A sale is two steps: `placeOrder` reserves an available animal (it becomes `pending`), then ' +
          '`updateOrder` ends the order, `delivered` (the animal is `sold`) or `cancelled` (it is `available` ' +
          'again). In "Try it out", run createPet, placeOrder, getOrder and updateOrder in that order.',
      },
      { name: 'rate limits', description: "The calling key's quota" },
    ],
    paths,
    components: {
      schemas: {
        NewPet: plain(NewPet),
        PetPatch: plain(PetPatch),
        Pet: plain(Pet),
        PetStatus: plain(PetStatus),
        Error: plain(ErrorSchema),
        RateLimitStatus: plain(RateLimitStatus),
        Inventory: plain(Inventory),
        NewOrder: plain(NewOrder),
        OrderPatch: plain(OrderPatch),
        Order: plain(Order),
        OrderStatus: plain(OrderStatus),
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`ask_...`) as the bearer token: `Authorization: Bearer ask_...`',
        },
      },
      headers: HEADERS,
      parameters: PARAMETERS,
      responses: {
        InvalidRequest: errorResponse(['invalid_request'], { example: INVALID_LIST_QUERY }),
        ...RESPONSES,
      } satisfies Record<SharedResponse, unknown>,
    },
  })
}

/** The document's `servers`: absolute, so a client generated outside a browser knows where to call. */
export function serversOf(baseUrl: string): OpenAPIV3_1.ServerObject[] {
  return [{ url: `${baseUrl}${API_PREFIX}`, description: 'This service' }]
}

function completeOperation(operation: Operation): void {
  if (!operation.responses) throw new Error(`Route of operation ${operation.operationId} documents no responses`)
  operation.security = [{ bearerAuth: [] }]
  // Elysia sees header names lower-cased; the document spells them as people do.
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]) {
    if (parameter.in === 'header')
      parameter.name = parameter.name.replace(
        /(^|-)([a-z])/g,
        (_, dash: string, letter: string) => dash + letter.toUpperCase(),
      )
  }
  // Swagger UI shows a parameter's own description and example, not its schema's: lift them up.
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]) {
    const schema = parameter.schema as Schema | undefined
    if (schema?.description && !parameter.description) parameter.description = schema.description
    if (schema?.examples?.length && parameter.example === undefined) parameter.example = schema.examples[0]
  }
  // An operation that can answer 304 takes If-None-Match (the generator keeps only the route's schemas' parameters).
  if (operation.responses[304])
    operation.parameters = [...(operation.parameters ?? []), ref('parameters', 'IfNoneMatch')]
  // Re-added last, so the operation reads as before the route carried its responses: parameters, then answers.
  const own = operation.responses
  delete operation.responses
  operation.responses = { ...GUARD_RESPONSES, ...own }
  // The generator cannot see through a custom parse hook, so it leaves the body's media type empty.
  if (operation.requestBody) {
    const body = { ...REQUEST_BODIES, ...ORDER_REQUEST_BODIES }[operation.operationId ?? '']
    if (body === undefined) throw new Error(`Operation ${operation.operationId} takes a body REQUEST_BODIES lacks`)
    operation.requestBody = body
  }
}

/** A TypeBox schema as plain JSON Schema: TypeBox's symbol keys dropped. */
function plain(schema: object): Schema {
  return JSON.parse(JSON.stringify(schema)) as Schema
}

/** Every inline copy of a status enum (a pet's, an order's) becomes a reference to its one component. */
function useStatusRef(document: Document): Document {
  const components = new Map([
    [JSON.stringify(plain(PetStatus)), 'PetStatus'],
    [JSON.stringify(plain(OrderStatus)), 'OrderStatus'],
  ])
  return JSON.parse(JSON.stringify(document), (key, value) => {
    const component = value && typeof value === 'object' ? components.get(JSON.stringify(value)) : undefined
    if (component !== undefined && key !== component) return ref('schemas', component)
    return value
  }) as Document
}
