import type { Server } from 'bun'
import { Elysia } from 'elysia'
import { type HealthChecks, healthRoutes } from '../health/routes'
import { errorBody } from '../http/errors'
import { listenError } from '../http/listener'
import type { ServiceMetrics } from './metrics'

/** Where the admin listener binds, and what it serves. */
export interface AdminListenerOptions {
  host: string
  port: number
  metrics: ServiceMetrics
  health: HealthChecks
}

/**
 * The second listener (ADMIN_PORT, on ADMIN_HOST), apart from the public
 * port as PostgREST's admin server is: `GET /metrics` in Prometheus' text
 * format and the same `GET /health` as the public port. Plain HTTP, no key:
 * bind it to loopback or a private network. A port it cannot take is thrown
 * as a ConfigError naming ADMIN_PORT or ADMIN_HOST.
 */
export function startAdminListener({ host, port, metrics, health }: AdminListenerOptions): Server<undefined> {
  const app = new Elysia({ name: 'admin' })
    .get('/metrics', async () => {
      const { text, contentType } = await metrics.scrape()
      return new Response(text, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } })
    })
    .use(healthRoutes(health))
    // Anything else is the API's JSON Error, not Elysia's text.
    .onError(({ code, set }) => {
      if (code !== 'NOT_FOUND') return undefined
      set.status = 404
      return errorBody(
        'not_found',
        'The admin listener serves GET /metrics, GET /health, GET /health/live and GET /health/ready only',
      )
    })
  try {
    return Bun.serve({ port, hostname: host, reusePort: false, fetch: (request) => app.fetch(request) })
  } catch (error) {
    throw listenError(error, { port, host, portVariable: 'ADMIN_PORT', hostVariable: 'ADMIN_HOST' })
  }
}
