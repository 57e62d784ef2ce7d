import { ORDER_SCENARIOS } from './order_scenarios'
import { type Answer, auth, json, rateLimitHeaders, type Scenario, type ScenarioContext } from './scenario_kit'

export type { Answer, LoadRequest, PetPool, Scenario, ScenarioContext, StoreReference } from './scenario_kit'

interface PetLike {
  id: number
  status: string
}

/** Status, rate-limit headers, and (on a sample) a page that is ascending, of the right size and above `after`. */
function pageCheck(expected: {
  size: (answer: Answer) => number
  status?: string
  firstId?: (answer: Answer) => number
}) {
  return (answer: Answer, full: boolean, context: ScenarioContext): string | undefined => {
    if (answer.status !== 200) return `status ${answer.status}`
    const headers = rateLimitHeaders(answer, context)
    if (headers || !full) return headers
    const page = JSON.parse(answer.body) as PetLike[]
    if (page.length !== expected.size(answer)) return `page of ${page.length}, expected ${expected.size(answer)}`
    const after = Number(answer.noted.after ?? 0)
    for (let i = 0; i < page.length; i++) {
      const pet = page[i]!
      if (pet.id <= after || (i > 0 && pet.id <= page[i - 1]!.id)) return 'ids not ascending above after'
      if (expected.status && pet.status !== expected.status) return `status ${pet.status} in a ${expected.status} page`
    }
    if (expected.firstId && page[0]?.id !== expected.firstId(answer)) return `first id ${page[0]?.id}`
    return undefined
  }
}

/** Every pet scenario of the bench, in the order they run; the order scenarios follow them. */
const PET_SCENARIOS: Scenario[] = [
  {
    name: 'hot list',
    what: 'GET /v1/pets?limit=20, the same page again and again',
    reference: { of: 'floor', target: 1.5 },
    requests: ({ keys }) => [{ method: 'GET', path: '/v1/pets?limit=20', headers: auth(keys.unlimited) }],
    check: pageCheck({ size: () => 20, firstId: () => 1 }),
    peers: true,
  },
  {
    name: 'hot list 304',
    what: 'GET /v1/pets?limit=20 with the If-None-Match of that page: a 304 without a body, counting nothing',
    requests: ({ keys, hotListEtag }) => [
      {
        method: 'GET',
        path: '/v1/pets?limit=20',
        headers: { ...auth(keys.unlimited), 'if-none-match': hotListEtag ?? '*' },
      },
    ],
    check: (answer, _full, context) => {
      if (answer.status !== 304) return `status ${answer.status}`
      if (context.hotListEtag && answer.headers.etag !== context.hotListEtag) return `etag ${answer.headers.etag}`
      if (answer.body !== '') return 'a body on a 304'
      return rateLimitHeaders(answer, context)
    },
  },
  {
    name: 'hot list gzip',
    what: 'GET /v1/pets?limit=20 with Accept-Encoding: gzip: the cached page, compressed once and kept',
    requests: ({ keys }) => [
      { method: 'GET', path: '/v1/pets?limit=20', headers: { ...auth(keys.unlimited), 'accept-encoding': 'gzip' } },
    ],
    check: (answer, _full, context) => {
      if (answer.status !== 200) return `status ${answer.status}`
      if (answer.headers['content-encoding'] !== 'gzip') return `content-encoding ${answer.headers['content-encoding']}`
      if (answer.headers.vary !== 'Accept-Encoding') return `vary ${answer.headers.vary}`
      return rateLimitHeaders(answer, context)
    },
  },
  {
    name: 'cold list',
    what: 'GET /v1/pets?limit=20&after=<random id>',
    reference: { of: 'read', target: 1.15 },
    requests: ({ keys, pets }) => [
      {
        method: 'GET',
        headers: auth(keys.unlimited),
        setupRequest: (request, context) => {
          const after = Math.floor(Math.random() * (pets - 20))
          context.after = after
          return { ...request, path: `/v1/pets?limit=20&after=${after}` }
        },
      },
    ],
    check: pageCheck({ size: () => 20, firstId: (answer) => Number(answer.noted.after) + 1 }),
    peers: true,
    wrkRequest: ({ pets }) => `request = function()
  return wrk.format(nil, "/v1/pets?limit=20&after=" .. math.random(0, ${pets - 21}))
end`,
  },
  {
    name: 'filtered list',
    what: 'GET /v1/pets?status=available&limit=100',
    reference: { of: 'floor' },
    requests: ({ keys }) => [
      { method: 'GET', path: '/v1/pets?status=available&limit=100', headers: auth(keys.unlimited) },
    ],
    check: pageCheck({ size: () => 100, status: 'available' }),
    peers: true,
  },
  {
    name: 'first page',
    what: 'GET /v1/pets?limit=20 (compare with the deep page)',
    requests: ({ keys }) => [{ method: 'GET', path: '/v1/pets?limit=20', headers: auth(keys.unlimited) }],
    check: pageCheck({ size: () => 20, firstId: () => 1 }),
  },
  {
    name: 'deep page',
    what: 'GET /v1/pets?limit=20&after=<25 before the end>',
    reference: { of: 'floor' },
    requests: ({ keys, pets }) => [
      { method: 'GET', path: `/v1/pets?limit=20&after=${pets - 25}`, headers: auth(keys.unlimited) },
    ],
    check: (answer, full, context) =>
      pageCheck({ size: () => 20, firstId: () => context.pets - 24 })(answer, full, context),
    peers: true,
  },
  {
    name: 'create',
    what: 'POST /v1/pets (default durability, synchronous=FULL)',
    reference: { of: 'commit', target: 1.4 },
    requests: ({ keys }) => [
      {
        method: 'POST',
        path: '/v1/pets',
        headers: { ...auth(keys.unlimited), ...json },
        body: '{"name":"Bench","categoryId":3}',
      },
    ],
    check: (answer, full, context) => {
      if (answer.status !== 201) return `status ${answer.status}`
      if (!answer.headers.location) return 'no Location'
      if (!full) return rateLimitHeaders(answer, context)
      const pet = JSON.parse(answer.body) as { id: number; name: string }
      return pet.name === 'Bench' && pet.id > 0 ? rateLimitHeaders(answer, context) : 'wrong pet'
    },
    peers: true,
  },
  {
    name: '429 path',
    what: 'GET /v1/pets with a Free key far over its limit',
    reference: { of: 'floor', target: 1.25 },
    requests: ({ keys }) => [{ method: 'GET', path: '/v1/pets?limit=20', headers: auth(keys.free) }],
    // The service bans a key that keeps going over its limit, so every answer is a 429; a peer's key for this
    // scenario has a limit of 0 (a fixed window would let 60 a minute through), so every answer is a 429 too.
    check: (answer, _full, context) =>
      answer.status !== 429
        ? `status ${answer.status}`
        : !context.peer && !answer.headers['retry-after']
          ? 'no Retry-After'
          : rateLimitHeaders(answer, context),
    peers: true,
  },
  {
    name: '401 path',
    what: 'GET /v1/pets with unknown keys, each from its own address (TRUST_PROXY on)',
    requests: () => [
      {
        method: 'GET',
        path: '/v1/pets?limit=20',
        setupRequest: (request) => {
          const n = Math.floor(Math.random() * 2 ** 32)
          return {
            ...request,
            headers: {
              authorization: 'Bearer ask_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
              'x-forwarded-for': `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`,
            },
          }
        },
      },
    ],
    check: (answer, _full, context) =>
      answer.status !== 401
        ? `status ${answer.status}`
        : !answer.headers['www-authenticate']
          ? 'no WWW-Authenticate'
          : rateLimitHeaders(answer, context),
    wrkRequest: () => `request = function()
  wrk.headers["x-forwarded-for"] = math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255)
  return wrk.format()
end`,
  },
  {
    name: 'mixed 90/10',
    what: 'nine GET /v1/pets?limit=20 for each POST /v1/pets',
    requests: ({ keys }) => [
      ...Array.from({ length: 9 }, () => ({ method: 'GET', path: '/v1/pets?limit=20', headers: auth(keys.unlimited) })),
      {
        method: 'POST',
        path: '/v1/pets',
        headers: { ...auth(keys.unlimited), ...json },
        body: '{"name":"Bench","categoryId":3}',
      },
    ],
    check: (answer, _full, context) =>
      answer.status !== 200 && answer.status !== 201 ? `status ${answer.status}` : rateLimitHeaders(answer, context),
  },
  {
    name: 'update',
    what: 'PATCH /v1/pets/<random id> setting status available or pending (a reserve or a release; no sold pet)',
    reference: { of: 'update' },
    requests: ({ keys, pets }) => [
      {
        method: 'PATCH',
        headers: { ...auth(keys.unlimited), ...json },
        setupRequest: (request, context) => {
          const { id, status } = togglablePet(pets)
          context.id = id
          context.status = status
          return { ...request, path: `/v1/pets/${id}`, body: `{"status":"${status}"}` }
        },
      },
    ],
    check: (answer, full, context) => {
      if (answer.status !== 200) return `status ${answer.status}`
      if (!answer.headers.etag) return 'no ETag'
      if (!full) return rateLimitHeaders(answer, context)
      const pet = JSON.parse(answer.body) as PetLike
      if (pet.id !== answer.noted.id || pet.status !== answer.noted.status) return `pet ${answer.body}`
      return rateLimitHeaders(answer, context)
    },
    wrkRequest: ({ pets }) => `request = function()
  local id = 3 * math.random(1, ${Math.floor(pets / 3) - 1}) + math.random(0, 1)
  local status = math.random(0, 1) == 0 and "available" or "pending"
  return wrk.format("PATCH", "/v1/pets/" .. id, nil, '{"status":"' .. status .. '"}')
end`,
  },
  {
    name: 'inventory',
    what: 'GET /v1/store/inventory: exact counts, kept by triggers, at any number of pets',
    requests: ({ keys }) => [{ method: 'GET', path: '/v1/store/inventory', headers: auth(keys.unlimited) }],
    check: (answer, full, context) => {
      if (answer.status !== 200) return `status ${answer.status}`
      if (!full) return rateLimitHeaders(answer, context)
      const counts = JSON.parse(answer.body) as Record<string, number>
      const total = (counts.available ?? -1) + (counts.pending ?? -1) + (counts.sold ?? -1)
      if (!(total >= context.pets)) return `counts ${answer.body} for ${context.pets} pets`
      return rateLimitHeaders(answer, context)
    },
  },
  {
    name: 'mixed 99/1',
    what: '99 GET /v1/pets?limit=20 for each PATCH of a pet on that page: every change drops the hot page',
    requests: ({ keys }) => [
      ...Array.from({ length: 99 }, () => ({
        method: 'GET',
        path: '/v1/pets?limit=20',
        headers: auth(keys.unlimited),
      })),
      {
        method: 'PATCH',
        headers: { ...auth(keys.unlimited), ...json },
        // Pet 3 is on the first page and never sold: its status goes back and forth.
        setupRequest: (request) => ({
          ...request,
          path: '/v1/pets/3',
          body: `{"status":"${Math.random() < 0.5 ? 'available' : 'pending'}"}`,
        }),
      },
    ],
    check: (answer, _full, context) =>
      answer.status !== 200 ? `status ${answer.status}` : rateLimitHeaders(answer, context),
    wrkRequest: () => `local n = 0
local patch = {}
for name, value in pairs(wrk.headers) do patch[name] = value end
patch["Content-Type"] = "application/json"
request = function()
  n = n + 1
  if n % 100 ~= 0 then return wrk.format("GET", "/v1/pets?limit=20") end
  local status = (n / 100) % 2 == 0 and "available" or "pending"
  return wrk.format("PATCH", "/v1/pets/3", patch, '{"status":"' .. status .. '"}')
end`,
  },
]

/**
 * A pet the bench seeded available or pending (ids 3k and 3k + 1: bench/lib/seed.ts gives statuses in turn),
 * and a status it may take from either: the update scenario's requests are all 200s.
 */
function togglablePet(pets: number): { id: number; status: 'available' | 'pending' } {
  const id = 3 * Math.floor(Math.random() * Math.floor(pets / 3)) + Math.floor(Math.random() * 2)
  return { id: id < 1 ? 3 : id, status: Math.random() < 0.5 ? 'available' : 'pending' }
}

/** Every scenario of the bench, in the order they run. */
export const SCENARIOS: Scenario[] = [...PET_SCENARIOS, ...ORDER_SCENARIOS]
