import {
  type Answer,
  auth,
  json,
  type PetPool,
  rateLimitHeaders,
  type Scenario,
  type ScenarioContext,
} from './scenario_kit'

// The order scenarios work on pets made for them (`prepare`), never on the seeded ones other scenarios
// change directly. Each run takes fresh pets from the pool, since a run that stops mid-order leaves its pets
// reserved; after the last run, `verify` reads every pet handed out back through the service.

/** Pets the order scenarios make: enough for every run of both at 100 connections and 5 rounds. */
const POOL_SIZE = 5000
/** The few pets the contention scenario's clients all order, per run. */
const CONTENDED = 8

/** Makes the pool of fresh available pets, once for both scenarios. */
async function makePool(url: string, context: ScenarioContext): Promise<void> {
  if (context.orderPets !== undefined) return
  const ids: number[] = []
  const headers = { ...auth(context.keys.unlimited), ...json }
  const create = async (i: number) => {
    const body = JSON.stringify({ name: `for sale ${i}`, categoryId: 5 })
    const response = await fetch(`${url}/v1/pets`, { method: 'POST', headers, body })
    if (response.status !== 201) throw new Error(`making the order pool: status ${response.status}`)
    return ((await response.json()) as { id: number }).id
  }
  // A hundred at a time: they share commits.
  for (let i = 0; i < POOL_SIZE; i += 100)
    ids.push(...(await Promise.all(Array.from({ length: 100 }, (_, j) => create(i + j)))))
  context.orderPets = { ids, next: 0 }
}

/** The next `count` pets of the pool, each handed out once. */
function takePets(context: ScenarioContext, count: number): number[] {
  const pool = context.orderPets as PetPool
  if (pool.next + count > pool.ids.length) throw new Error('the order pool is used up: raise POOL_SIZE')
  pool.next += count
  return pool.ids.slice(pool.next - count, pool.next)
}

/**
 * After the runs, every pet handed out, read back: at most one `placed`
 * order (two would be a double sale), and the pet `pending` exactly when it
 * has one, else `available` (the scenarios never deliver).
 */
async function verifyPool(url: string, context: ScenarioContext): Promise<{ checked: string; problems: string[] }> {
  const pool = context.orderPets as PetPool
  const handedOut = pool.ids.slice(0, pool.next)
  const headers = auth(context.keys.unlimited)
  const problems: string[] = []
  let orders = 0
  for (const petId of handedOut) {
    const placed = (await (await fetch(`${url}/v1/store/orders?petId=${petId}&status=placed`, { headers })).json()) as
      | unknown[]
      | { message: string }
    const pet = (await (await fetch(`${url}/v1/pets/${petId}`, { headers })).json()) as { status: string }
    if (!Array.isArray(placed)) {
      problems.push(`pet ${petId}: ${placed.message}`)
      continue
    }
    orders += placed.length
    if (placed.length > 1) problems.push(`double sale: pet ${petId} has ${placed.length} placed orders`)
    const expected = placed.length === 1 ? 'pending' : 'available'
    if (pet.status !== expected) problems.push(`pet ${petId} is ${pet.status} with ${placed.length} placed orders`)
  }
  return {
    checked: `${handedOut.length} pets read back, ${orders} still reserved, ${problems.filter((p) => p.startsWith('double')).length} double sales`,
    problems,
  }
}

/** A placed order for `petId`, or a cancelled one. */
function orderCheck(answer: Answer, full: boolean, context: ScenarioContext): string | undefined {
  if (answer.status !== 201 && answer.status !== 200) return `status ${answer.status}`
  if (!full) return rateLimitHeaders(answer, context)
  const order = JSON.parse(answer.body) as { status: string }
  const expected = answer.status === 201 ? 'placed' : 'cancelled'
  return order.status === expected ? rateLimitHeaders(answer, context) : `order ${answer.body}`
}

/** The order scenarios of the bench, after the pet scenarios. */
export const ORDER_SCENARIOS: Scenario[] = [
  {
    name: 'order and cancel',
    what: 'POST /v1/store/orders for a pet of its own, then PATCH it cancelled: each connection reserves and releases',
    // autocannon clears a connection's context at the end of each cycle, so the pets free to order (and,
    // for the contention scenario, the orders to cancel) are kept by the run, for all its connections.
    requests: (context) => {
      const free: number[] = []
      const headers = { ...auth(context.keys.unlimited), ...json }
      return [
        {
          method: 'POST',
          path: '/v1/store/orders',
          headers,
          setupRequest: (request, connection) => {
            connection.petId = free.pop() ?? takePets(context, 1)[0]
            return { ...request, body: `{"petId":${connection.petId}}` }
          },
          onResponse: (status, body, connection) => {
            if (status === 201) connection.orderId = (JSON.parse(body) as { id: number }).id
          },
        },
        {
          method: 'PATCH',
          headers,
          setupRequest: (request, connection) => ({
            ...request,
            path: `/v1/store/orders/${connection.orderId}`,
            body: '{"status":"cancelled"}',
          }),
          // Free again once cancelled; a wrong answer on the way is counted, and shows as a 409 next time.
          onResponse: (_status, _body, connection) => free.push(connection.petId as number),
        },
      ]
    },
    check: orderCheck,
    // One Lua state (wrk -t1): the pets free to order, and the orders placed and not yet cancelled.
    wrkRequest: (context) => `local pets = {${takePets(context, 400).join(', ')}}
local orders = {}
request = function()
  local order = table.remove(orders)
  if order then return wrk.format("PATCH", "/v1/store/orders/" .. order, nil, '{"status":"cancelled"}') end
  local pet = table.remove(pets)
  if pet == nil then error("no pet left to order: more connections than pets") end
  return wrk.format("POST", "/v1/store/orders", nil, '{"petId":' .. pet .. '}')
end
response = function(status, headers, body)
  if status == 201 then table.insert(orders, tonumber(body:match('"id":(%d+)'))) end
  if status == 200 then table.insert(pets, tonumber(body:match('"petId":(%d+)'))) end
end`,
    prepare: makePool,
    verify: verifyPool,
  },
  {
    name: 'order contention',
    what: `every connection orders one of the same ${CONTENDED} pets; each 201's order is cancelled next, so the race goes on`,
    requests: (context) => {
      const contended = takePets(context, CONTENDED)
      const won: number[] = []
      return [
        {
          method: 'POST',
          path: '/v1/store/orders',
          headers: { ...auth(context.keys.unlimited), ...json },
          setupRequest: (request) => {
            const order = won.pop()
            if (order !== undefined)
              return { ...request, method: 'PATCH', path: `/v1/store/orders/${order}`, body: '{"status":"cancelled"}' }
            const petId = contended[Math.floor(Math.random() * contended.length)]
            return { ...request, method: 'POST', path: '/v1/store/orders', body: `{"petId":${petId}}` }
          },
          onResponse: (status, body) => {
            if (status === 201) won.push((JSON.parse(body) as { id: number }).id)
          },
        },
      ]
    },
    check: (answer, full, context) => {
      if (answer.status !== 409) return orderCheck(answer, full, context)
      const error = JSON.parse(answer.body) as { code: string }
      return error.code === 'pet_not_available' ? rateLimitHeaders(answer, context) : `409 ${error.code}`
    },
    wrkRequest: (context) => `local contended = {${takePets(context, CONTENDED).join(', ')}}
local won = {}
request = function()
  local order = table.remove(won)
  if order then return wrk.format("PATCH", "/v1/store/orders/" .. order, nil, '{"status":"cancelled"}') end
  return wrk.format("POST", "/v1/store/orders", nil, '{"petId":' .. contended[math.random(#contended)] .. '}')
end
response = function(status, headers, body)
  if status == 201 then table.insert(won, tonumber(body:match('"id":(%d+)'))) end
end`,
    prepare: makePool,
    verify: verifyPool,
  },
]
