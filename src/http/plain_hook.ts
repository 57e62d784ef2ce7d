import type { Awaitable } from '../awaitable'
import type { ResponseSet } from './errors'

// Every wrapper made plain here, so a test can ask Elysia about each one an app holds.
const madePlain = new WeakSet<object>()

function plain<F extends object>(hook: F): F {
  madePlain.add(hook)
  return hook
}

/** Whether `fn` is a hook made plain here (for the test that asks Elysia about each one an app holds). */
export function isPlainHook(fn: unknown): boolean {
  return typeof fn === 'function' && madePlain.has(fn)
}

/*
 * Plain hooks: a hook or a route handler that Elysia compiles without a
 * promise when its answer is always at hand (`atOnce`), else an async one it
 * awaits. Elysia reads each hook's source, and the wrappers below are written
 * for what it reads, so do not "simplify" them:
 * - whether to compile the whole chain as async (`isAsync` in elysia/compose:
 *   an AsyncFunction, or a source with `async`, `await`, `return f(` or
 *   `=> f(`): a plain wrapper calls into a variable and returns that;
 * - whether the hook answers (`hasReturn`: a `return` in its source);
 * - which parts of the context to build (elysia/sucrose reads the
 *   parameter): a wrapper that took the context whole would make Elysia parse
 *   the query, the headers and the cookies of every request, so each names
 *   exactly the parts its hooks use, and there is one wrapper per shape.
 * An async chain, or an answer handed to Bun as a promise, costs every
 * request far more (bench/README.md, "Answers without a promise"), and only
 * test/http/plain_hook_test.ts would notice.
 */

/**
 * An `onRequest` hook that reads the request and writes its answer's status
 * and headers (the guard's, which never waits: what it waits for, it waits
 * for in a wrap before the chain, auth/guard.ts).
 */
export function plainRequestHook<A>(check: (request: Request, set: ResponseSet) => A | undefined) {
  return plain(({ request, set }: { request: Request; set: ResponseSet }) => {
    const answered = check(request, set)
    if (answered !== undefined) return answered
  })
}

/** A route handler that reads the validated query as well (the list). */
export function plainQueryHandler<Q, A>(
  answer: (query: Q, request: Request, set: ResponseSet) => Awaitable<A | undefined>,
  atOnce: boolean,
) {
  if (!atOnce)
    return async ({ query, request, set }: { query: Q; request: Request; set: ResponseSet }) =>
      await answer(query, request, set)
  return plain(({ query, request, set }: { query: Q; request: Request; set: ResponseSet }) => {
    const answered = answer(query, request, set)
    if (answered !== undefined) return answered
  })
}

/** What an `onError` hook reads of Elysia's context. */
export interface ErrorContext {
  code: string | number
  error: unknown
  path: string
  request: Request
  set: ResponseSet
}

/** An `onError` hook (the error mapper): a plain one makes every route plain, failing or not. */
export function plainErrorHook<A>(map: (context: ErrorContext) => Awaitable<A>, atOnce: boolean) {
  if (!atOnce)
    return async ({ code, error, path, request, set }: ErrorContext) => await map({ code, error, path, request, set })
  return plain(({ code, error, path, request, set }: ErrorContext) => {
    const answered = map({ code, error, path, request, set })
    if (answered !== undefined) return answered
  })
}
