import { isApiUrl, isChildPath, isPath, pathOf } from '../http/url'
import { ORDERS_PATH } from '../orders/answers'
import { INVENTORY_PATH, PETS_PATH } from '../pets/paths'
import { RATE_LIMIT_PATH } from '../ratelimit/routes'

/** What a request did, as the metrics label it: the API's operations by their OpenAPI ids, the docs, or other. */
export const OPERATIONS = [
  'listPets',
  'createPet',
  'getPet',
  'updatePet',
  'deletePet',
  'getInventory',
  'placeOrder',
  'listOrders',
  'getOrder',
  'updateOrder',
  'getRateLimit',
  'docs',
  'other',
] as const
export type Operation = (typeof OPERATIONS)[number]

const DOCS_PATHS = new Set(['/', '/docs', '/docs/', '/openapi.json', '/favicon.ico'])

/**
 * The operation a request asked for, read from its method and path alone
 * (no routing), so a refusal before the route (401, 429) counts under the
 * operation it was refused: anything else under `/v1` (an unknown path, a
 * method a path does not allow) is `other`.
 */
export function operationOf(request: Request): Operation {
  const { url, method } = request
  if (isApiUrl(url)) {
    const read = method === 'GET' || method === 'HEAD'
    if (isPath(url, PETS_PATH)) return read ? 'listPets' : method === 'POST' ? 'createPet' : 'other'
    if (isChildPath(url, PETS_PATH))
      return read ? 'getPet' : method === 'PATCH' ? 'updatePet' : method === 'DELETE' ? 'deletePet' : 'other'
    if (read && isPath(url, INVENTORY_PATH)) return 'getInventory'
    if (isPath(url, ORDERS_PATH)) return read ? 'listOrders' : method === 'POST' ? 'placeOrder' : 'other'
    if (isChildPath(url, ORDERS_PATH)) return read ? 'getOrder' : method === 'PATCH' ? 'updateOrder' : 'other'
    if (read && isPath(url, RATE_LIMIT_PATH)) return 'getRateLimit'
    return 'other'
  }
  const path = pathOf(url)
  return DOCS_PATHS.has(path) || path.startsWith('/docs/') ? 'docs' : 'other'
}
