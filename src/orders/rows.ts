import { cutToPage } from '../pets/paging'
import type { Order, OrderStatus } from './schema'
import type { OrderPage } from './store'

/** An orders row as both databases give it: PostgreSQL's bigints arrive as text; times are epoch ms. */
export interface OrderRow {
  id: number | string
  petId: number | string
  status: OrderStatus
  placedAt: number | string
  updatedAt: number | string
}

/** A row as the API answers it: exact ids (capped at 2^53 - 1), times in RFC 3339, UTC. */
export function orderOf(row: OrderRow): Order {
  return {
    id: Number(row.id),
    petId: Number(row.petId),
    status: row.status,
    placedAt: new Date(Number(row.placedAt)).toISOString(),
    updatedAt: new Date(Number(row.updatedAt)).toISOString(),
  }
}

/** The page of `limit` orders in `rows` (read with rowsForPage), and whether more follow. */
export function orderPageOf(rows: OrderRow[], limit: number): OrderPage {
  const more = cutToPage(rows, limit)
  return { orders: rows.map(orderOf), more }
}
