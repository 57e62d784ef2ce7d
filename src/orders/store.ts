import type { Awaitable } from '../awaitable'
import type { IdempotencyClaim } from '../pets/idempotency'
import type { OrderPrecondition, OrderUpdateOutcome, PlaceOutcome } from './changes'
import type { Order, OrderOutcome, OrderStatus } from './schema'

/** One page of a key line's orders in id order, and whether more follow it. */
export interface OrderPage {
  orders: Order[]
  more: boolean
}

/** What a page of the list asks for: whose orders, and which; `after` is the last id already seen. */
export interface OrderListQuery {
  /** The key line whose orders these are (the quota id of the calling key). */
  owner: number
  limit: number
  status?: OrderStatus
  petId?: number
  after?: number
}

/**
 * Where orders live: beside the pets, in the same database, since an order
 * and its pet change in one transaction. SQLite (`SqliteOrderStore`, on the
 * pets' group commit) or PostgreSQL (`PostgresOrderStore`). Every call
 * names the key line (`owner`): another line's order is not found. A
 * database out of reach throws StoreUnavailableError.
 */
export interface OrderStore {
  /**
   * Places an order for pet `petId` if it is `available`, making it
   * `pending` in the same transaction: of concurrent orders for one pet,
   * exactly one is placed. With a claim, atomically with it. `now` is epoch ms.
   */
  place(petId: number, owner: number, now: number, claim?: IdempotencyClaim): Awaitable<PlaceOutcome>
  get(id: number, owner: number): Awaitable<Order | undefined>
  list(query: OrderListQuery): Awaitable<OrderPage>
  /**
   * Ends a placed order, `delivered` (its pet becomes `sold`) or `cancelled`
   * (`available`), in one transaction, when `precondition` holds for it as
   * it stands. `now` is epoch ms.
   */
  update(
    id: number,
    owner: number,
    status: OrderOutcome,
    now: number,
    precondition?: OrderPrecondition,
  ): Awaitable<OrderUpdateOutcome>
}
