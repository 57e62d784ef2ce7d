import { describe, expect, test } from 'bun:test'
import { isAsync } from 'elysia/compose'
import { sucrose } from 'elysia/sucrose'
import type { ErrorBody } from '../../src/http/errors'
import {
  type ErrorContext,
  isPlainHook,
  plainErrorHook,
  plainQueryHandler,
  plainRequestHook,
} from '../../src/http/plain_hook'
import type { PetStore } from '../../src/pets/store'
import type { RateLimiter } from '../../src/ratelimit/limiter'
import { MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { makeTestApp } from '../helpers'

const REFUSAL: ErrorBody = { code: 'unauthorized', message: 'no', status: 401 }
const set = () => ({ headers: {} })
const request = new Request('http://localhost/v1/pets')
const errorContext: ErrorContext = { code: 'NOT_FOUND', error: new Error('x'), path: '/x', request, set: set() }

/** What Elysia reads of a hook's source: whether it compiles it as async, and which parts of the context it builds. */
function asElysiaReadsIt(hook: (...args: never[]) => unknown) {
  const { query, headers, body, cookie, server } = sucrose({ request: [{ fn: hook }] } as never)
  return {
    async: isAsync(hook as never),
    // Elysia's own rule for whether a hook answers (`hasReturn` in elysia/compose, not exported).
    returns: String(hook).includes('return'),
    builds: { query, headers, body, cookie, server },
  }
}

describe('plain hooks, as Elysia reads them', () => {
  test.each([
    ['plainRequestHook', plainRequestHook(() => REFUSAL), false],
    ['plainQueryHandler', plainQueryHandler(() => REFUSAL, true), true],
    ['plainErrorHook', plainErrorHook(() => REFUSAL, true), false],
  ])('%s, at once: plain, answering, building only what it names', (_, hook, readsQuery) => {
    expect(isPlainHook(hook)).toBe(true)
    expect(asElysiaReadsIt(hook as never)).toEqual({
      async: false,
      returns: true,
      builds: { query: readsQuery, headers: false, body: false, cookie: false, server: false },
    })
  })

  test.each([
    ['plainQueryHandler', plainQueryHandler(() => REFUSAL, false)],
    ['plainErrorHook', plainErrorHook(() => REFUSAL, false)],
  ])('%s, later: async, so Elysia awaits it', (_, hook) => {
    expect(isPlainHook(hook)).toBe(false)
    expect(isAsync(hook as never)).toBe(true)
  })

  test('pass the answer through, or undefined to go on, with what they read', async () => {
    const seen: unknown[] = []
    const guard = plainRequestHook((req, s) => {
      seen.push(req, s)
      return req.method === 'GET' ? REFUSAL : undefined
    })
    const written = set()
    expect(guard({ request, set: written })).toBe(REFUSAL)
    expect(seen).toEqual([request, written])
    expect(guard({ request: new Request('http://localhost/', { method: 'POST' }), set: set() })).toBeUndefined()
    const list = plainQueryHandler((query: { limit: number }) => (query.limit > 1 ? 'page' : undefined), true)
    expect(list({ query: { limit: 2 }, request, set: set() })).toBe('page')
    expect(list({ query: { limit: 1 }, request, set: set() })).toBeUndefined()
    expect(plainErrorHook((context) => context.path, true)(errorContext)).toBe('/x')
    expect(await plainErrorHook(async (context) => context.code, false)(errorContext)).toBe('NOT_FOUND')
  })
})

describe('every plain hook of the app, as Elysia compiles it', () => {
  /** Every hook and route handler an app holds. */
  function hooksOf(app: { event: Record<string, unknown>; routes: { handler: unknown }[] }): unknown[] {
    const hooks = Object.values(app.event).flatMap((list) => (Array.isArray(list) ? list : []))
    return [...hooks.map((hook: { fn?: unknown }) => hook.fn ?? hook), ...app.routes.map((route) => route.handler)]
  }

  test('with SQLite and the in-memory limiter: the guard, the error mapper and the list, each plain', async () => {
    const { app } = await makeTestApp({ limiter: new MemoryRateLimiter() })
    const plain = hooksOf(app).filter(isPlainHook)
    expect(plain).toHaveLength(3)
    for (const hook of plain) expect(asElysiaReadsIt(hook as never)).toMatchObject({ async: false, returns: true })
    // Nothing else in the request chain reads as async either.
    expect((app.event.request ?? []).filter((hook) => isAsync(hook as never))).toEqual([])
    expect((app.event.error ?? []).filter((hook) => isAsync(hook as never))).toEqual([])
  })

  test('with a limiter or a store that may answer later: only the guard is plain, as it waits before the chain', async () => {
    const later: RateLimiter = { ...new MemoryRateLimiter(), answersAtOnce: false } as unknown as RateLimiter
    const { app } = await makeTestApp({ limiter: later })
    const plain = hooksOf(app).filter(isPlainHook)
    expect(plain).toEqual((app.event.request ?? []).map((hook) => hook.fn).filter(isPlainHook))
    expect(plain).toHaveLength(1)
    expect((app.event.request ?? []).filter((hook) => isAsync(hook as never))).toEqual([])
    const slowPets = await makeTestApp()
    const pets: PetStore = Object.assign(Object.create(slowPets.pets), { listsAtOnce: false })
    const { app: withSlowPets } = await makeTestApp({ pets, limiter: new MemoryRateLimiter() })
    expect(hooksOf(withSlowPets).filter(isPlainHook)).toHaveLength(2)
  })
})
