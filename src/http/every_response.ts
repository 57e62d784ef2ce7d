import { Elysia } from 'elysia'

/**
 * A plugin that wraps the whole app (Elysia's `wrap`), so `finish` sees
 * every response, those that hooks answer early (401, 429) included;
 * `start` runs first, before anything else sees the request, and what it
 * returns is handed to `finish`.
 */
export function onEveryResponse<T>(
  name: string,
  start: (request: Request) => T,
  finish: (request: Request, response: Response, started: T) => Response,
) {
  return new Elysia({ name }).wrap((handle) => (request: Request) => {
    const started = start(request)
    const result = (handle as unknown as (request: Request) => Response | Promise<Response>)(request)
    return result instanceof Promise
      ? result.then((response) => finish(request, response, started))
      : finish(request, result, started)
  })
}
