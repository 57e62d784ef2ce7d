import type { DocumentDecoration } from 'elysia'
import type { OpenAPIV3_1 } from 'openapi-types'
import { HttpError } from '../http/errors'
import { MERGE_PATCH_OR_JSON } from '../http/json_body'
import { MAX_BODY_BYTES } from '../http/limits'
import {
  EVERY_RESPONSE_HEADERS,
  errorResponse,
  header,
  jsonResponse,
  operationResponses,
  ref,
  response,
  responseWithHeaders,
} from '../openapi/responses'
import { invalidTransition, petChanged, petHasOrders, petNotFound } from './answers'
import { GET_PET_SUNSET } from './deprecation'
import { idempotencyKeyReused } from './idempotency_header'
import { MAX_ID, MAX_LIMIT, type Pet } from './schema'

/** One animal as the examples of the document show it. */
const PET_EXAMPLE: Pet = { id: 42, name: 'Rex', categoryId: 1, status: 'available' }

/** The 404 of an operation on one pet, as the document describes it. */
const NOT_FOUND = { description: 'not_found: no animal has this id', example: petNotFound(PET_EXAMPLE.id) }

/** What a path id that is not one gets told. */
const INVALID_PET_ID = `"petId" must be an integer from 1 to ${MAX_ID}`

/** The headers every answer of the deprecated getPet carries. */
const GET_PET_HEADERS = {
  Deprecation: header('Deprecation'),
  Sunset: header('Sunset'),
  Link: header('SuccessorLink'),
}

/** `GET /pets` in the OpenAPI document: what it does, and its own responses with examples. */
export const LIST_PETS: DocumentDecoration = {
  operationId: 'listPets',
  summary: 'List animals',
  description:
    'Animals in ascending id order, optionally only those with one status. When more remain after this page, ' +
    'the response carries `Link: <...>; rel="next"` with the next page\'s URL (keyset paging with `after`). ' +
    "The page's `ETag` changes exactly when the page (or whether a next one follows) does: revalidate with " +
    '`If-None-Match` for a free 304.',
  tags: ['pets'],
  responses: operationResponses({
    200: jsonResponse(
      'A page of animals in ascending id order',
      { type: 'array', items: ref('schemas', 'Pet'), maxItems: MAX_LIMIT },
      { Link: header('NextLink'), ETag: header('ETag') },
      [PET_EXAMPLE, { id: 43, name: 'Tom', categoryId: 2, status: 'sold' }],
    ),
    304: response('NotModified'),
    400: response('InvalidRequest'),
  }),
}

/** `POST /pets` in the OpenAPI document. */
export const CREATE_PET: DocumentDecoration = {
  operationId: 'createPet',
  summary: 'Add an animal',
  description:
    'Stores a new animal; `status` defaults to `available`. Any property beyond `name`, `categoryId` and `status` is refused.',
  tags: ['pets'],
  responses: operationResponses({
    201: jsonResponse(
      'The stored animal, with the id the service assigned',
      ref('schemas', 'Pet'),
      { Location: header('Location'), 'Idempotent-Replayed': header('IdempotentReplayed') },
      PET_EXAMPLE,
    ),
    400: response('InvalidRequest'),
    403: response('Forbidden'),
    413: response('PayloadTooLarge'),
    415: response('UnsupportedMediaType'),
    422: errorResponse(['idempotency_key_reused'], { example: idempotencyKeyReused() }),
  }),
}

/** `GET /pets/{petId}` in the OpenAPI document: deprecated, and every answer says so. */
export const GET_PET: DocumentDecoration = {
  operationId: 'getPet',
  summary: 'Get an animal (deprecated)',
  description:
    `Deprecated: this operation will be removed on 5 December 2030 (Sunset: ${GET_PET_SUNSET}). ` +
    'List with `GET /pets` instead: `GET /pets?after={id − 1}&limit=1` answers a one-animal page; it is the ' +
    'wanted one when its `id` matches (else that id does not exist). Every response, a 401 or a ' +
    '429 included, carries `Deprecation`, `Sunset` and `Link: <.../v1/pets>; rel="successor-version", ' +
    '<.../docs#/pets/getPet>; rel="deprecation"`.',
  deprecated: true,
  tags: ['pets'],
  responses: operationResponses({
    200: jsonResponse('The animal', ref('schemas', 'Pet'), { ...GET_PET_HEADERS, ETag: header('ETag') }, PET_EXAMPLE),
    304: responseWithHeaders('NotModified', GET_PET_HEADERS),
    400: errorResponse(['invalid_request'], {
      description: 'invalid_request: the id is not an integer from 1 to 2^53 - 1, or a query parameter was sent',
      example: new HttpError('invalid_request', INVALID_PET_ID, {
        param: 'petId',
        errors: [{ param: 'petId', message: INVALID_PET_ID }],
      }),
      headers: GET_PET_HEADERS,
    }),
    401: responseWithHeaders('Unauthorized', GET_PET_HEADERS),
    404: errorResponse(['not_found'], { ...NOT_FOUND, headers: GET_PET_HEADERS }),
    429: responseWithHeaders('TooManyRequests', GET_PET_HEADERS),
    500: responseWithHeaders('InternalError', GET_PET_HEADERS),
    503: responseWithHeaders('Unavailable', GET_PET_HEADERS),
  }),
}

/** What marks an operation of version 1.2 in the document: `x-stability`, and a description that begins so. */
export const EXPERIMENTAL = { 'x-stability': 'experimental' } as Record<string, unknown>

/** The answers every change to one pet may give besides its own. */
const CHANGE_RESPONSES = {
  400: response('InvalidRequest'),
  403: response('Forbidden'),
  404: errorResponse(['not_found'], NOT_FOUND),
  412: errorResponse(['precondition_failed'], { example: petChanged(PET_EXAMPLE.id) }),
}

/** `PATCH /pets/{petId}` in the OpenAPI document: experimental (version 1.2). */
export const UPDATE_PET: DocumentDecoration = {
  operationId: 'updatePet',
  summary: 'Change an animal (experimental)',
  description:
    'Experimental (version 1.2). Changes the fields the body names (a JSON Merge Patch, RFC 7396, or plain JSON): ' +
    '`name`, `categoryId`, `status`; the others keep their value, and `{}` changes nothing (it answers the animal ' +
    'and its `ETag`). The status moves `available` → `pending` (reserved) or `sold`, `pending` → `available` or `sold`; ' +
    '`sold` is final: any other move is 409 `invalid_transition`. While the animal has a `placed` order, its ' +
    'status moves only through that order (`updateOrder`): 409 `pet_has_open_order`. With `If-Match: <ETag>` (from `getPet`, or the ' +
    'answer of the last change) the change is made only if the animal is still as that ETag says, else 412 and ' +
    'nothing changes; without it, the last write wins. Every read after the 200 sees the change.',
  tags: ['pets'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    200: jsonResponse(
      'The animal as it is now stored, with its new ETag (for the next If-Match)',
      ref('schemas', 'Pet'),
      { ETag: header('ETag') },
      { ...PET_EXAMPLE, status: 'pending' },
    ),
    ...CHANGE_RESPONSES,
    409: errorResponse(['invalid_transition', 'pet_has_open_order'], {
      example: invalidTransition('sold', 'available'),
    }),
    413: response('PayloadTooLarge'),
    415: errorResponse(['unsupported_media_type'], {
      example: MERGE_PATCH_OR_JSON.refusal,
    }),
  }),
}

/** `DELETE /pets/{petId}` in the OpenAPI document: experimental (version 1.2). */
export const DELETE_PET: DocumentDecoration = {
  operationId: 'deletePet',
  summary: 'Remove an animal (experimental)',
  description:
    'Experimental (version 1.2). Removes the animal: 204, and from then on it is in no list, count or get (404). ' +
    'With `If-Match: <ETag>` it is removed only if it is still as that ETag says, else 412. An animal an order ' +
    'names stays, for the order history: 409 `pet_has_orders`.',
  tags: ['pets'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    204: { description: 'Removed. No body', headers: EVERY_RESPONSE_HEADERS },
    ...CHANGE_RESPONSES,
    409: errorResponse(['pet_has_orders'], { example: petHasOrders(PET_EXAMPLE.id) }),
  }),
}

/** An inventory as the document's example shows it. */
const INVENTORY_EXAMPLE = { available: 120, pending: 4, sold: 37 }

/** `GET /store/inventory` in the OpenAPI document: experimental (version 1.2). */
export const GET_INVENTORY: DocumentDecoration = {
  operationId: 'getInventory',
  summary: 'Count the animals by status (experimental)',
  description:
    'Experimental (version 1.2). How many animals are `available`, `pending` (reserved) and `sold`: exact, seen ' +
    'by the very next read after any change, and as quick with a million animals as with ten. Its `ETag` changes ' +
    'exactly when a count does: revalidate with `If-None-Match` for a free 304.',
  tags: ['store'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    200: jsonResponse('The counts', ref('schemas', 'Inventory'), { ETag: header('ETag') }, INVENTORY_EXAMPLE),
    304: response('NotModified'),
    400: response('InvalidRequest'),
  }),
}

/**
 * The request bodies of the operations that take one, by operationId: the
 * generator cannot see through a custom parse hook, so the document takes
 * them from here.
 */
export const REQUEST_BODIES: Readonly<Record<string, OpenAPIV3_1.RequestBodyObject>> = {
  createPet: {
    required: true,
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes`,
    content: {
      'application/json': {
        schema: ref('schemas', 'NewPet'),
        example: { name: 'Rex', categoryId: 1, status: 'available' },
      },
    },
  },
  updatePet: {
    required: true,
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes: the fields to change`,
    content: {
      'application/merge-patch+json': { schema: ref('schemas', 'PetPatch'), example: { status: 'pending' } },
      'application/json': { schema: ref('schemas', 'PetPatch'), example: { name: 'Rex the Second' } },
    },
  },
}
