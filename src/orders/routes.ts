import { Elysia } from 'elysia'
import type { Callers } from '../http/callers'
import { integerFromText } from '../http/integer_text'
import { parseJsonBody, parseMergePatchBody } from '../http/json_body'
import { NoQuery } from '../http/no_query'
import { API_PREFIX, baseUrl } from '../http/url'
import { answerCreated, ifMatchPrecondition, pageTag, petNotFound, sendChanged, sendTagged } from '../pets/answers'
import { claimOf, idempotencyKeyReused } from '../pets/idempotency_header'
import { DEFAULT_LIMIT, IdempotencyKeyHeaders } from '../pets/schema'
import type { SettleQuota } from '../ratelimit/settle'
import { ORDERS_PATH, orderChanged, orderInvalidTransition, orderNotFound, orderTag, petNotAvailable } from './answers'
import { orderBodyHash } from './changes'
import { GET_ORDER, LIST_ORDERS, PLACE_ORDER, UPDATE_ORDER } from './operations'
import { ListOrdersQuery, NewOrder, OrderChangeHeaders, OrderIdParams, OrderPatch } from './schema'
import type { OrderListQuery, OrderStore } from './store'

/** What the order routes need. */
export interface OrderRoutesOptions {
  orders: OrderStore
  /** Which key each request authenticated with (the guard has checked it): its line owns the orders it places. */
  callers: Callers
  /** Milliseconds since the epoch: when an order is placed or changed, and Idempotency-Key expiry. */
  clock: () => number
  /** Public base URL without `/v1`; when absent, derived from each request. */
  publicUrl?: string
  /** Counts a conditional GET the guard let through, unless its answer is a 304. */
  settleQuota: SettleQuota
}

/**
 * The experimental order operations of version 1.2 (decisions.md, "Orders")
 * under `/v1/store/orders`: place (reserve an animal), list, get, and end
 * (deliver or cancel). Every one is scoped to the calling key's line: an
 * order of another line is not found. A read-only key never places or ends
 * one: the guard refuses every write with 403.
 */
export function orderRoutes({ orders, callers, clock, publicUrl, settleQuota }: OrderRoutesOptions) {
  /** The key line of the request's key, which owns its orders (the guard let only a valid key through). */
  const ownerOf = (request: Request): number => {
    const key = callers.keyOf(request)
    if (key === undefined) throw new Error('an order route was reached without a key')
    return key.quotaId
  }
  return new Elysia({ name: 'orders', prefix: API_PREFIX })
    .post(
      '/store/orders',
      async ({ body, headers, request, set }) => {
        const now = clock()
        const claim = claimOf(
          headers['idempotency-key'],
          callers.keyIdOf(request),
          () => orderBodyHash(body.petId),
          now,
        )
        const outcome = await orders.place(body.petId, ownerOf(request), now, claim)
        switch (outcome.kind) {
          case 'pet_not_found':
            throw petNotFound(body.petId)
          case 'pet_not_available':
            throw petNotAvailable(body.petId, outcome.status)
          case 'conflict':
            throw idempotencyKeyReused()
        }
        const location = `${baseUrl(publicUrl, request.url)}${ORDERS_PATH}/${outcome.order.id}`
        answerCreated(set, location, outcome.kind === 'replayed')
        return sendChanged(JSON.stringify(outcome.order), set)
      },
      { parse: parseJsonBody, body: NewOrder, headers: IdempotencyKeyHeaders, query: NoQuery, detail: PLACE_ORDER },
    )
    .get(
      '/store/orders',
      async ({ query, request, set }) => {
        const wanted: OrderListQuery = {
          owner: ownerOf(request),
          limit: query.limit ?? DEFAULT_LIMIT,
          status: query.status,
          petId: query.petId,
          after: query.after,
        }
        const page = await orders.list(wanted)
        const json = JSON.stringify(page.orders)
        const last = page.orders.at(-1)
        if (page.more && last)
          set.headers.link = `<${nextPageUrl(baseUrl(publicUrl, request.url), wanted, last.id)}>; rel="next"`
        // The tag covers whether a next page follows: the `Link` a 304 stands for.
        return sendTagged(json, request, set, settleQuota, pageTag(json, page.more))
      },
      {
        query: ListOrdersQuery,
        detail: LIST_ORDERS,
        transform({ query }) {
          if (query.limit !== undefined) query.limit = integerFromText(query.limit) as number
          if (query.petId !== undefined) query.petId = integerFromText(query.petId) as number
          if (query.after !== undefined) query.after = integerFromText(query.after) as number
        },
      },
    )
    .get(
      '/store/orders/:orderId',
      async ({ params, request, set }) => {
        const order = await orders.get(params.orderId, ownerOf(request))
        if (order === undefined) throw orderNotFound(params.orderId)
        return sendTagged(JSON.stringify(order), request, set, settleQuota)
      },
      {
        params: OrderIdParams,
        query: NoQuery,
        detail: GET_ORDER,
        transform({ params }) {
          params.orderId = integerFromText(params.orderId) as number
        },
      },
    )
    .patch(
      '/store/orders/:orderId',
      async ({ params, body, headers, request, set }) => {
        const id = params.orderId
        const outcome = await orders.update(
          id,
          ownerOf(request),
          body.status,
          clock(),
          ifMatchPrecondition(headers['if-match'], orderTag),
        )
        switch (outcome.kind) {
          case 'not_found':
            throw orderNotFound(id)
          case 'precondition_failed':
            throw orderChanged(id)
          case 'invalid_transition':
            throw orderInvalidTransition(outcome.from, outcome.to)
        }
        return sendChanged(JSON.stringify(outcome.order), set)
      },
      {
        parse: parseMergePatchBody,
        body: OrderPatch,
        params: OrderIdParams,
        query: NoQuery,
        headers: OrderChangeHeaders,
        detail: UPDATE_ORDER,
        transform({ params }) {
          params.orderId = integerFromText(params.orderId) as number
        },
      },
    )
}

function nextPageUrl(base: string, { limit, status, petId }: OrderListQuery, lastId: number): string {
  const filters = `${status ? `&status=${status}` : ''}${petId ? `&petId=${petId}` : ''}`
  return `${base}${ORDERS_PATH}?limit=${limit}${filters}&after=${lastId}`
}
