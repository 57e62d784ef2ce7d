import type { SharedPageCache } from '../pets/shared_page_cache'
import type { OrderStore } from './store'

/** An order store whose committed changes (an order placed or ended moves its pet) mark the shared version too. */
export function markingOrderChanges(orders: OrderStore, pages: SharedPageCache): OrderStore {
  return {
    place: (petId, owner, now, claim) => pages.afterChange(orders.place(petId, owner, now, claim)),
    get: (id, owner) => orders.get(id, owner),
    list: (query) => orders.list(query),
    update: (id, owner, status, now, precondition) =>
      pages.afterChange(orders.update(id, owner, status, now, precondition)),
  }
}
