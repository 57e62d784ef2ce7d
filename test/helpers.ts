import { afterAll, afterEach, beforeAll, describe, expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AppDeps, createApp } from '../src/app'
import { sqliteStores } from '../src/backends'
import { openDatabase } from '../src/db/sqlite'
import { issueKey } from '../src/keys/issue'
import { PLAN_LIMITS } from '../src/keys/plans'
import type { KeyStore, NewApiKey } from '../src/keys/store'
import { createLogger } from '../src/log'
import type { OrderStore } from '../src/orders/store'
import type { PetStore } from '../src/pets/store'
import type { RateLimiter } from '../src/ratelimit/limiter'
import { postgresTestStores, redisTestLimiter, SHARED_STORES } from './shared_services'

/** Things to undo after each test of the file that calls this, last first: push a cleanup as you make the thing. */
export function cleanupsAfterEach(): (() => unknown)[] {
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  return cleanups
}

/** A fresh folder for one test's database, removed by `cleanup`. */
export function tempDir(prefix = 'animal-store-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Polls `probe` until it returns `expected` or `withinMs` passes; returns the last value seen. */
export async function eventually<T>(probe: () => Promise<T>, expected: T, withinMs = 1000): Promise<T> {
  const deadline = Date.now() + withinMs
  let value = await probe()
  while (value !== expected && Date.now() < deadline) {
    await Bun.sleep(25)
    value = await probe()
  }
  return value
}

/** The origin in-process requests are addressed to. */
export const BASE = 'http://localhost'

/** What a request in a test may carry. */
export interface TestRequest {
  /** The bearer key; `null` sends no Authorization header. Defaults to the test key. */
  key?: string | null
  headers?: Record<string, string>
  /** An object is sent as JSON with `Content-Type: application/json`; a string is sent as is. */
  body?: unknown
}

/** Limits high enough that tests about other things never meet the rate limiter. */
export const UNLIMITED: NewApiKey = { name: 'test', plan: 'enterprise', rpm: 1_000_000, rpd: 1_000_000_000 }
/** A Free key, for tests about the limits themselves. */
export const FREE: NewApiKey = { name: 'free', plan: 'free', ...PLAN_LIMITS.free }

/**
 * The start of a minute far in the future, for a test on a clock of its
 * own: Redis expires a window's keys at its end (PEXPIREAT), so a past
 * minute's would vanish at once.
 */
export const FUTURE_MINUTE = Date.UTC(2099, 10, 21, 10, 0, 0)

/**
 * One second into FUTURE_MINUTE: the clock of a test that drives a key over
 * a small limit through the app. With the real clock, two requests may fall
 * on either side of a minute's end, and the second is allowed in the new
 * window.
 */
export const IN_A_FUTURE_MINUTE = FUTURE_MINUTE + 1000

/**
 * What `makeTestApp` builds on: SQLite with the in-memory limiter (one
 * instance; in memory, or a file as a server has it, whose reads then run in
 * one snapshot a turn on a connection of their own), or PostgreSQL with the
 * Redis limiter (several instances).
 */
export type StoreKind = 'sqlite' | 'sqlite file' | 'postgres+redis'
let storeKind: StoreKind = 'sqlite'
const cleanups: (() => Promise<void>)[] = []

/**
 * `describe`, twice: on SQLite with the in-memory limiter, then on PostgreSQL
 * with the Redis limiter, which is reported as skipped when
 * TEST_DATABASE_URL and TEST_REDIS_URL are not set; with `sqliteFile`, a
 * third time on a SQLite file. Inside, `makeTestApp` builds on the one the
 * block names.
 */
export function describeEachStore(
  name: string,
  body: (kind: StoreKind) => void,
  { sqliteFile = false }: { sqliteFile?: boolean } = {},
): void {
  describe(`${name} [sqlite]`, () => body('sqlite'))
  if (sqliteFile)
    describe(`${name} [sqlite file]`, () => {
      buildOn('sqlite file')
      body('sqlite file')
    })
  describe.skipIf(!SHARED_STORES)(`${name} [postgres+redis]`, () => {
    // Hooks of a skipped block would be reported as skipped "(unnamed)" tests, inflating the count.
    if (SHARED_STORES) buildOn('postgres+redis')
    body('postgres+redis')
  })
}

/** Inside a describe block: `makeTestApp` builds on `kind` there, and what each test made is undone after it. */
function buildOn(kind: StoreKind): void {
  beforeAll(() => {
    storeKind = kind
  })
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })
  afterAll(() => {
    storeKind = 'sqlite'
  })
}

/** The stores of one test app, and a way to read their tables (same names in both databases). */
interface TestStores {
  pets: PetStore
  orders: OrderStore
  keys: KeyStore
  limiter?: RateLimiter
  query(sql: string): Promise<unknown[]>
}

async function testStores(): Promise<TestStores> {
  if (storeKind !== 'postgres+redis') {
    const workspace = storeKind === 'sqlite file' ? tempDir('animal-store-test-') : undefined
    const db = openDatabase(workspace === undefined ? ':memory:' : join(workspace.dir, 'store.sqlite'))
    // As the server composes it: the page cache in front of SQLite, orders on the same group commit.
    const { pets, orders, keys, close } = sqliteStores(db)
    if (workspace !== undefined)
      cleanups.push(async () => {
        close()
        workspace.cleanup()
      })
    return {
      pets,
      orders,
      keys,
      query: async (sql) => db.query(sql).all(),
    }
  }
  const stores = await postgresTestStores()
  const redis = await redisTestLimiter()
  cleanups.push(stores.cleanup, redis.cleanup)
  return {
    pets: stores.pets,
    orders: stores.orders,
    keys: stores.keys,
    limiter: redis.limiter,
    query: async (sql) => [...(await stores.sql.unsafe(sql))],
  }
}

/** A fresh app with one key (unlimited unless `keyPlan` says otherwise), and a one-line way to call it. */
export async function makeTestApp(overrides: Partial<AppDeps> = {}, keyPlan: NewApiKey = UNLIMITED) {
  const { pets, orders, keys, limiter, query } = await testStores()
  const { key, secret } = await issueKey(keys, keyPlan)
  const logs: Record<string, unknown>[] = []
  const logger = createLogger('info', (line) => logs.push(JSON.parse(line)))
  const app = createApp({ pets, orders, keys, limiter, logger, ...overrides })

  async function call(method: string, path: string, request: TestRequest = {}): Promise<Response> {
    const headers = new Headers(request.headers)
    const bearer = request.key === undefined ? secret : request.key
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`)
    let body: string | undefined
    if (typeof request.body === 'string') body = request.body
    else if (request.body !== undefined) {
      body = JSON.stringify(request.body)
      if (!headers.has('content-type')) headers.set('content-type', 'application/json')
    }
    return app.handle(new Request(BASE + path, { method, headers, body }))
  }

  return { app, keys, pets, key, secret, call, logs, query }
}

/** Reads a response body as JSON, typed loosely for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: assertions read any field of any body
export async function json(response: Response): Promise<any> {
  return response.json()
}

/** An Error body as the tests read it: `param` and `errors` when the failure points at fields. */
export interface ErrorReply {
  code: string
  message: string
  status: number
  param?: string
  errors?: { param: string; message: string }[]
}

/**
 * Asserts the shape every failure has (code, message and status; `param` and
 * `errors` only as the Error schema says) and returns the body.
 */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorReply> {
  const body = (await response.json()) as ErrorReply
  const { param, errors, ...rest } = body
  expect({ httpStatus: response.status, body: rest }).toEqual({
    httpStatus: status,
    body: { code, message: expect.any(String), status },
  })
  if (param !== undefined) expect(typeof param).toBe('string')
  if (errors !== undefined) {
    expect(errors.length).toBeGreaterThan(0)
    for (const error of errors) expect(error).toEqual({ param: expect.any(String), message: expect.any(String) })
    // The first violation is the one the message and param name.
    expect(errors[0]).toEqual({ param: param as string, message: body.message })
  }
  expect(response.headers.get('content-type')).toStartWith('application/json')
  return body
}

/** A fixed pseudo-random sequence in [0, 1) from `seed`, so a walk is the same on every run. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
}
