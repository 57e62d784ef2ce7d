import type { DocumentDecoration } from 'elysia'
import type { OpenAPIV3_1 } from 'openapi-types'
import { MERGE_PATCH_OR_JSON } from '../http/json_body'
import { MAX_BODY_BYTES } from '../http/limits'
import { errorResponse, header, jsonResponse, operationResponses, ref, response } from '../openapi/responses'
import { petNotFound } from '../pets/answers'
import { idempotencyKeyReused } from '../pets/idempotency_header'
import { EXPERIMENTAL } from '../pets/operations'
import { MAX_LIMIT } from '../pets/schema'
import { orderChanged, orderInvalidTransition, orderNotFound, petNotAvailable } from './answers'
import type { Order } from './schema'

// The examples run in order in Swagger UI's "Try it out" on a new store: createPet makes animal 1, placeOrder
// reserves it as order 1, getOrder reads it, updateOrder delivers it.

/** One order as the examples of the document show it. */
const ORDER_EXAMPLE: Order = {
  id: 1,
  petId: 1,
  status: 'placed',
  placedAt: '2026-11-25T15:20:56.123Z',
  updatedAt: '2026-11-25T15:20:56.123Z',
}

/** Who sees an order, as every order operation says it. */
const PRIVATE =
  'An order belongs to the API key that placed it and to the keys rolled from it: any other key gets 404 for it ' +
  'and never sees it listed.'

/** The 404 of an operation on one order. */
const ORDER_NOT_FOUND = {
  description: "not_found: none of this key line's orders has this id",
  example: orderNotFound(ORDER_EXAMPLE.id),
}

/** `POST /store/orders` in the OpenAPI document. */
export const PLACE_ORDER: DocumentDecoration = {
  operationId: 'placeOrder',
  summary: 'Reserve an animal (experimental)',
  description:
    'Experimental (version 1.2). The first step of a sale: reserves an `available` animal, which becomes ' +
    '`pending` in the same transaction that stores the order. Then `updateOrder` ends it: `delivered` (the animal ' +
    'is sold) or `cancelled` (available again). Of many concurrent orders for one animal exactly one is placed; ' +
    `the others get 409 \`pet_not_available\`. ${PRIVATE} An \`Idempotency-Key\` makes it safe to retry, as for ` +
    '`createPet`.',
  tags: ['store'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    201: jsonResponse(
      'The order, placed: its animal is now `pending`; its ETag serves the If-Match of `updateOrder`',
      ref('schemas', 'Order'),
      {
        Location: header('OrderLocation'),
        ETag: header('ETag'),
        'Idempotent-Replayed': header('IdempotentReplayed'),
      },
      ORDER_EXAMPLE,
    ),
    400: response('InvalidRequest'),
    403: response('Forbidden'),
    404: errorResponse(['not_found'], {
      description: 'not_found: no animal has this petId',
      example: petNotFound(ORDER_EXAMPLE.petId),
    }),
    409: errorResponse(['pet_not_available'], { example: petNotAvailable(ORDER_EXAMPLE.petId, 'pending') }),
    413: response('PayloadTooLarge'),
    415: response('UnsupportedMediaType'),
    422: errorResponse(['idempotency_key_reused'], { example: idempotencyKeyReused() }),
  }),
}

/** `GET /store/orders` in the OpenAPI document. */
export const LIST_ORDERS: DocumentDecoration = {
  operationId: 'listOrders',
  summary: "List the key's orders (experimental)",
  description:
    "Experimental (version 1.2). The calling key line's orders in ascending id order, optionally only those with " +
    'one status or for one animal. When more remain after this page, the response carries ' +
    '`Link: <...>; rel="next"` (keyset paging with `after`, as for animals). Revalidate with `If-None-Match` ' +
    'for a free 304.',
  tags: ['store'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    200: jsonResponse(
      'A page of orders in ascending id order',
      { type: 'array', items: ref('schemas', 'Order'), maxItems: MAX_LIMIT },
      { Link: header('NextOrdersLink'), ETag: header('ETag') },
      [ORDER_EXAMPLE],
    ),
    304: response('NotModified'),
    400: response('InvalidRequest'),
  }),
}

/** `GET /store/orders/{orderId}` in the OpenAPI document. */
export const GET_ORDER: DocumentDecoration = {
  operationId: 'getOrder',
  summary: 'Get an order (experimental)',
  description: `Experimental (version 1.2). One order, with its \`ETag\` (for \`If-Match\` on \`updateOrder\`). ${PRIVATE}`,
  tags: ['store'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    200: jsonResponse('The order', ref('schemas', 'Order'), { ETag: header('ETag') }, ORDER_EXAMPLE),
    304: response('NotModified'),
    400: response('InvalidRequest'),
    404: errorResponse(['not_found'], ORDER_NOT_FOUND),
  }),
}

/** `PATCH /store/orders/{orderId}` in the OpenAPI document. */
export const UPDATE_ORDER: DocumentDecoration = {
  operationId: 'updateOrder',
  summary: 'Deliver or cancel an order (experimental)',
  description:
    'Experimental (version 1.2). Ends a `placed` order: `{"status": "delivered"}` completes the sale (the animal ' +
    'becomes `sold`), `{"status": "cancelled"}` releases the animal (`available` again); the order and the animal ' +
    'change in one transaction. Both ends are final: any other move is 409 `invalid_transition`, and asking for ' +
    'the status the order already has changes nothing (200, so a retry is safe). With `If-Match: <ETag>` the ' +
    `change is made only if the order is still as that ETag says, else 412. ${PRIVATE}`,
  tags: ['store'],
  ...EXPERIMENTAL,
  responses: operationResponses({
    200: jsonResponse(
      'The order as it is now stored, with its new ETag',
      ref('schemas', 'Order'),
      { ETag: header('ETag') },
      { ...ORDER_EXAMPLE, status: 'delivered', updatedAt: '2026-11-25T15:24:03.518Z' },
    ),
    400: response('InvalidRequest'),
    403: response('Forbidden'),
    404: errorResponse(['not_found'], ORDER_NOT_FOUND),
    409: errorResponse(['invalid_transition'], { example: orderInvalidTransition('delivered', 'cancelled') }),
    412: errorResponse(['precondition_failed'], { example: orderChanged(ORDER_EXAMPLE.id) }),
    413: response('PayloadTooLarge'),
    415: errorResponse(['unsupported_media_type'], { example: MERGE_PATCH_OR_JSON.refusal }),
  }),
}

/** The request bodies of the order operations, by operationId (docs/openapi.ts says why the document takes them from here). */
export const ORDER_REQUEST_BODIES: Readonly<Record<string, OpenAPIV3_1.RequestBodyObject>> = {
  placeOrder: {
    required: true,
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes`,
    content: { 'application/json': { schema: ref('schemas', 'NewOrder'), example: { petId: ORDER_EXAMPLE.petId } } },
  },
  updateOrder: {
    required: true,
    description: `A JSON object of at most ${MAX_BODY_BYTES} bytes: how the order ends`,
    content: {
      'application/merge-patch+json': { schema: ref('schemas', 'OrderPatch'), example: { status: 'delivered' } },
      'application/json': { schema: ref('schemas', 'OrderPatch'), example: { status: 'cancelled' } },
    },
  },
}
