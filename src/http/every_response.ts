import { Elysia } from 'elysia'
import { andThen } from '../awaitable'
import type { ResponseSet } from './errors'
import { asHandle, HandOver } from './hand_over'

/**
 * One thing done around every response: `start` runs when the request
 * arrives, before anything else sees it, and what it returns is handed to
 * `headers` and `finish`. `headers` writes the headers the step puts on
 * every answer; `finish` sees the response (those hooks answer early, 401
 * and 429, included) and returns it.
 */
export interface ResponseStep<T = unknown> {
  start(request: Request): T
  /** Writes this step's headers of the answer, before a route or a hook writes its own (which win). */
  headers?(headers: ResponseSet['headers'], request: Request, started: T): void
  finish?(request: Request, response: Response, started: T): Response
}

/** A request on its way in, and whether its steps' headers were written into Elysia's `set` for it. */
interface Arrival {
  started: unknown[]
  written: boolean
}

/**
 * One Elysia `wrap` around the whole app that runs `steps`: started in
 * order, finished in reverse (the first started finishes last, so it sees
 * what the others did). One wrap for all of them, so their order is written
 * in one place. An answer made at once passes through without a promise.
 *
 * The steps' headers go into Elysia's `set` by the app's first `onRequest`
 * hook, so the Response is made with them: setting them on a made Response
 * cost every answer 4 to 6 % of its CPU (bench/README.md, "Headers written
 * before the answer is made"). The wrap hands the request's arrival to that
 * hook (http/hand_over.ts). An answer made without it (a CORS preflight,
 * answered in a wrap inside this one) gets the headers it lacks in `finish`.
 */
export function everyResponse(name: string, steps: readonly ResponseStep[]) {
  const arrivals = new HandOver<Arrival>()
  const writeHeaders = (headers: ResponseSet['headers'], request: Request, arrival: Arrival) => {
    for (let i = 0; i < steps.length; i++) steps[i]?.headers?.(headers, request, arrival.started[i])
  }
  const finish = (request: Request, arrival: Arrival, response: Response): Response => {
    if (!arrival.written) {
      const headers: ResponseSet['headers'] = {}
      writeHeaders(headers, request, arrival)
      for (const name in headers) if (!response.headers.has(name)) response.headers.set(name, String(headers[name]))
    }
    for (let i = steps.length - 1; i >= 0; i--) {
      const step = steps[i] as ResponseStep
      if (step.finish !== undefined) response = step.finish(request, response, arrival.started[i])
    }
    return response
  }
  return (
    new Elysia({ name })
      .wrap((handle) => (request: Request) => {
        const arrival: Arrival = { started: steps.map((step) => step.start(request)), written: false }
        const answered = arrivals.hand(request, arrival, asHandle(handle))
        return andThen(answered, (response) => finish(request, arrival, response))
      })
      // No `return` and nothing that waits in its source, so Elysia compiles the chain plain (http/plain_hook.ts).
      .onRequest(({ request, set }) => {
        const arrival = arrivals.take(request)
        if (arrival !== undefined) {
          arrival.written = true
          writeHeaders(set.headers, request, arrival)
        }
      })
  )
}
