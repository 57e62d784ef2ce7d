import type { DocumentDecoration } from 'elysia'
import {
  errorResponse,
  header,
  jsonResponse,
  operationResponses,
  ref,
  response,
  responseWithHeaders,
} from '../openapi/responses'
import { GET_PET_SUNSET } from './deprecation'
import { IDEMPOTENCY_KEY_REUSED } from './idempotency'
import { MAX_ID, type Pet } from './schema'

/** One animal as the examples of the document show it. */
const PET_EXAMPLE: Pet = { id: 42, name: 'Rex', categoryId: 1, status: 'available' }

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
      { type: 'array', items: ref('schemas', 'Pet') },
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
    422: errorResponse(['idempotency_key_reused'], { example: IDEMPOTENCY_KEY_REUSED }),
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
      description: 'invalid_request: the id is not an integer from 1 to 2^53 - 1',
      example: `"petId" must be an integer from 1 to ${MAX_ID}`,
      headers: GET_PET_HEADERS,
    }),
    401: responseWithHeaders('Unauthorized', GET_PET_HEADERS),
    404: errorResponse(['not_found'], {
      description: 'not_found: no animal has this id',
      example: 'Pet 42 does not exist',
      headers: GET_PET_HEADERS,
    }),
    429: responseWithHeaders('TooManyRequests', GET_PET_HEADERS),
  }),
}
