import { entityTag } from '../http/conditional'
import { HttpError } from '../http/errors'
import { API_PREFIX } from '../http/url'
import { cannotMove, changedSince } from '../pets/answers'
import type { PetStatus } from '../pets/schema'
import { orderMovesFrom } from './changes'
import type { Order, OrderStatus } from './schema'

/** Where the orders are in the API: the list and placeOrder; each order at `ORDERS_PATH/{orderId}`. */
export const ORDERS_PATH = `${API_PREFIX}/store/orders`

/** An order's strong ETag: the tag of its JSON as `getOrder` sends it, which `If-Match` must name. */
export function orderTag(order: Order): string {
  return entityTag(JSON.stringify(order))
}

/** The 404 of an operation on one order: none of the calling key line's orders has id `id`. */
export function orderNotFound(id: number): HttpError {
  return new HttpError('not_found', `Order ${id} does not exist`, { param: 'orderId' })
}

/** The 412 of an update whose `If-Match` names the order as it was, not as it is. */
export function orderChanged(id: number): HttpError {
  return changedSince(`Order ${id}`)
}

/** The 409 of an order for a pet that is reserved or sold. */
export function petNotAvailable(petId: number, status: PetStatus): HttpError {
  const why = status === 'pending' ? 'it is reserved (pending)' : `it is ${status}`
  return new HttpError('pet_not_available', `Pet ${petId} is not available: ${why}; nothing was ordered`, {
    param: 'petId',
  })
}

/** The 409 of an update that would move an order's status from `from` to `to`. */
export function orderInvalidTransition(from: OrderStatus, to: OrderStatus): HttpError {
  return cannotMove(from, to, orderMovesFrom(from))
}
