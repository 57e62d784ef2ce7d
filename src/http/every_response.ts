import { Elysia } from 'elysia'
import { andThen } from '../awaitable'

/**
 * One thing done around every response: `start` runs when the request
 * arrives, before anything else sees it, and what it returns is handed to
 * `finish`, which sees the response (those hooks answer early, 401 and
 * 429, included) and returns it.
 */
export interface ResponseStep<T = unknown> {
  start(request: Request): T
  finish(request: Request, response: Response, started: T): Response
}

/**
 * One Elysia `wrap` around the whole app that runs `steps`: started in
 * order, finished in reverse (the first started finishes last, so it sees
 * what the others did). One wrap for all of them, so their order is written
 * in one place. An answer made at once passes through without a promise, so
 * the wrap itself costs nothing measurable; its steps' work is what costs
 * (bench/README.md, "Where a request's microseconds go, in process").
 */
export function everyResponse(name: string, steps: readonly ResponseStep[]) {
  return new Elysia({ name }).wrap((handle) => (request: Request) => {
    const started = steps.map((step) => step.start(request))
    const finish = (response: Response): Response => {
      for (let i = steps.length - 1; i >= 0; i--)
        response = (steps[i] as ResponseStep).finish(request, response, started[i])
      return response
    }
    return andThen((handle as unknown as (request: Request) => Response | Promise<Response>)(request), finish)
  })
}
