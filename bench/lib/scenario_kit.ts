import type { BenchKeys } from './seed'

/** What an autocannon request looks like here (a subset of its options). */
export interface LoadRequest {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  setupRequest?: (request: LoadRequest, context: Record<string, unknown>) => LoadRequest
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void
}

/** Everything a scenario may build its requests from. */
export interface ScenarioContext {
  keys: BenchKeys
  pets: number
  /** The ETag of the hot list's page, as the service gave it before the runs (the 304 scenario needs it). */
  hotListEtag?: string
  /**
   * The answers come from a peer (bench/servers/peers), which promises only the
   * three X-RateLimit-* headers (Limit, Remaining, Reset), not the service's
   * five and the IETF fields.
   */
  peer?: boolean
  /** Pets made for the order scenarios, available, handed out once each (bench/lib/order_scenarios.ts). */
  orderPets?: PetPool
}

/** Fresh available pets, each handed out once (`next` moves on), and the ones handed out, to verify after the runs. */
export interface PetPool {
  ids: number[]
  next: number
}

/** One measured workload: its requests, and how to tell a right answer from a fast wrong one. */
export interface Scenario {
  name: string
  what: string
  /** The requests one connection cycles through; a request's own `onResponse` may note what the next one needs. */
  requests(context: ScenarioContext): LoadRequest[]
  /** Why this answer is wrong, or undefined. `full` asks for the body to be checked too (done on a sample). */
  check(answer: Answer, full: boolean, context: ScenarioContext): string | undefined
  /** Whether the peers (bench/servers/peers) implement it, so `--peers` measures it against them. */
  peers?: boolean
  /**
   * What the service's CPU per request is a multiple of in `--peers` and
   * `--floors` (issue 32's yardsticks): `floor`, the Elysia floor (the same
   * answer through Elysia with no work); `read`, `commit` or `update`, raw
   * Bun doing only that store work on SQLite (bench/servers/baseline_server.ts
   * with BASELINE_PETS). `target` is the multiple aimed at, when one is set.
   */
  reference?: { of: StoreReference; target?: number }
  /**
   * For wrk, when the requests vary: Lua that defines `request()` (wrk's
   * per-request hook), after the fixed headers are set in `wrk.headers`.
   */
  wrkRequest?(context: ScenarioContext): string
  /** Makes what the scenario needs on the service (the order scenarios' pets) before its first run. */
  prepare?(url: string, context: ScenarioContext): Promise<void>
  /** Checks the store the runs left, through the service, after the last run: the problems found, and what was checked. */
  verify?(url: string, context: ScenarioContext): Promise<{ checked: string; problems: string[] }>
}

/** The reference a scenario's service figure is measured against (Scenario.reference). */
export type StoreReference = 'floor' | 'read' | 'commit' | 'update'

/** One answer as the load generator saw it. */
export interface Answer {
  status: number
  body: string
  headers: Record<string, string>
  /** What setupRequest noted for this request (e.g. the `after` it asked for). */
  noted: Record<string, unknown>
}

export const auth = (key: string) => ({ authorization: `Bearer ${key}` })
export const json = { 'content-type': 'application/json' }

export function rateLimitHeaders({ headers }: Answer, { peer }: ScenarioContext): string | undefined {
  for (const name of PEER_RATE_LIMIT_HEADERS) if (!/^\d+$/.test(headers[name] ?? '')) return `missing ${name}`
  if (peer) return undefined
  if (!/^\d+$/.test(headers['x-ratelimit-used'] ?? '')) return 'missing x-ratelimit-used'
  const resource = headers['x-ratelimit-resource']
  if (resource !== 'minute' && resource !== 'day') return `x-ratelimit-resource is ${resource}`
  if (!/^"(minute|day)";r=\d+;t=\d+$/.test(headers.ratelimit ?? '')) return `ratelimit is ${headers.ratelimit}`
  if (!/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/.test(headers['ratelimit-policy'] ?? ''))
    return `ratelimit-policy is ${headers['ratelimit-policy']}`
  return undefined
}

/** What every answer of a peer carries, as the service's do. */
const PEER_RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']
