import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { afterParameter, idSchema, ifMatchHeaders, limitParameter, MAX_ID, withoutDefault } from '../pets/schema'

/** Where an order is in its life: `placed` (its animal reserved), then `delivered` (sold) or `cancelled`. */
export const OrderStatus = withoutDefault(
  t.UnionEnum(['placed', 'delivered', 'cancelled'], {
    description: 'placed: the animal is reserved for it; delivered: sold; cancelled: the animal is available again',
  }),
)
export type OrderStatus = Static<typeof OrderStatus>

/** The statuses an order can be moved to: both final. */
export const OrderOutcome = withoutDefault(
  t.UnionEnum(['delivered', 'cancelled'], {
    description: 'delivered: the sale completes (the animal is sold); cancelled: the animal is available again',
  }),
)
export type OrderOutcome = Static<typeof OrderOutcome>

const Instant = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-25T15:20:56.123Z'] })

/** An order as the API answers it. */
export const Order = Type.Object(
  {
    id: idSchema('Assigned by the service'),
    petId: idSchema('The animal the order is for'),
    status: OrderStatus,
    placedAt: Instant('When the order was placed (RFC 3339, UTC)'),
    updatedAt: Instant('When the order last changed status (RFC 3339, UTC); placedAt until then'),
  },
  { additionalProperties: false },
)
export type Order = Static<typeof Order>

/** The body of `POST /store/orders`: the animal to reserve; any other property is refused. */
export const NewOrder = Type.Object(
  { petId: idSchema('The animal to reserve: it must be `available`') },
  { additionalProperties: false },
)
export type NewOrder = Static<typeof NewOrder>

/** The body of `PATCH /store/orders/{orderId}`: how the order ends. */
export const OrderPatch = Type.Object({ status: OrderOutcome }, { additionalProperties: false })
export type OrderPatch = Static<typeof OrderPatch>

/** Path of the operations on one order. */
export const OrderIdParams = Type.Object({ orderId: idSchema('Identifier of the order: 1 to 2^53 − 1') })

/** Query of `GET /store/orders`; integers arrive as text and are converted strictly first. Unknown parameters are refused. */
export const ListOrdersQuery = Type.Object(
  {
    limit: Type.Optional(limitParameter('orders')),
    status: Type.Optional(OrderStatus),
    petId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ID,
        description: 'Only the orders for this animal',
      }),
    ),
    after: Type.Optional(afterParameter('orders')),
  },
  { additionalProperties: false },
)
export type ListOrdersQuery = Static<typeof ListOrdersQuery>

/** Headers `PATCH /store/orders/{orderId}` reads. */
export const OrderChangeHeaders = ifMatchHeaders(
  'The ETag of the order as the client last saw it (from `getOrder`, `placeOrder` or the last `updateOrder`): ' +
    'the change is made only if the order is still as that, else 412 `precondition_failed`.',
)
