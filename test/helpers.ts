import { expect } from 'bun:test'
import { createApp, type AppDeps } from '../src/app'
import { openDatabase } from '../src/db/open'
import { issueKey } from '../src/keys/issue'
import { PLAN_LIMITS } from '../src/keys/plans'
import { SqliteKeyStore, type NewApiKey } from '../src/keys/store'
import { createLogger } from '../src/log'
import { CachedPetStore } from '../src/pets/page_cache'
import { SqlitePetStore } from '../src/pets/store'

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

/** A fresh in-memory app with one key (unlimited unless `keyPlan` says otherwise), and a one-line way to call it. */
export async function makeTestApp(overrides: Partial<AppDeps> = {}, keyPlan: NewApiKey = UNLIMITED) {
  const db = openDatabase(':memory:')
  const keys = new SqliteKeyStore(db)
  // As the server composes it: the page cache in front of SQLite.
  const pets = new CachedPetStore(new SqlitePetStore(db), db)
  const { key, secret } = await issueKey(keys, keyPlan)
  const logs: Record<string, unknown>[] = []
  const logger = createLogger('info', (line) => logs.push(JSON.parse(line)))
  const app = createApp({ pets, keys, logger, ...overrides })

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

  return { app, db, keys, pets, key, secret, call, logs }
}

/** Reads a response body as JSON, typed loosely for assertions. */
export async function json(response: Response): Promise<any> {
  return response.json()
}

/** Asserts the shape every failure has and returns the body. */
export async function expectError(response: Response, status: number, code: string): Promise<{ code: string; message: string; status: number }> {
  const body = (await response.json()) as { code: string; message: string; status: number }
  expect({ httpStatus: response.status, body }).toEqual({ httpStatus: status, body: { code, message: expect.any(String), status } })
  expect(response.headers.get('content-type')).toStartWith('application/json')
  return body
}
