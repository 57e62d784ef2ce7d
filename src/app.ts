import { Elysia } from 'elysia'
import { apiGuard } from './auth/guard'
import { docsRoutes } from './docs/routes'
import { errorMapper } from './errors'
import { allowedMethods } from './http/allowed_methods'
import type { KeyStore } from './keys/store'
import { petRoutes } from './pets/routes'
import type { PetStore } from './pets/store'
import { MemoryRateLimiter, type RateLimiter } from './ratelimit/limiter'

/** Everything the app is built from; tests pass their own. */
export interface AppDeps {
  pets: PetStore
  keys: KeyStore
  /** Counts requests per key or address; a fresh in-memory one when absent. */
  limiter?: RateLimiter
  /** Milliseconds since the epoch; `Date.now` when absent. */
  clock?: () => number
  /** Whether the first `X-Forwarded-For` hop names the client (TRUST_PROXY). */
  trustProxy?: boolean
  /** Public base URL without `/v1`; when absent, derived from each request. */
  publicUrl?: string
  /** Told about every unexpected error before the client gets a bare 500. */
  reportUnexpected?: (error: unknown) => void
}

/**
 * The one Elysia chain, in the order a request meets it: errors are mapped
 * first (so validation failures become 400s), the guard authenticates and
 * rate-limits, then the routes. `normalize: false` makes unknown properties a 400 instead of
 * silently stripping them.
 */
export function createApp(deps: AppDeps) {
  const app = new Elysia({ normalize: false })
  return app
    .use(errorMapper({ allowedMethods: allowedMethods(() => app.routes), reportUnexpected: deps.reportUnexpected ?? logUnexpected }))
    .use(
      apiGuard({
        keys: deps.keys,
        limiter: deps.limiter ?? new MemoryRateLimiter(),
        clock: deps.clock ?? Date.now,
        trustProxy: deps.trustProxy ?? false,
        socketAddress: (request) => app.server?.requestIP(request)?.address,
      }),
    )
    .use(petRoutes(deps))
    .use(docsRoutes({ app: () => app, publicUrl: deps.publicUrl }))
}

/** The app's type, for code that receives one. */
export type App = ReturnType<typeof createApp>

function logUnexpected(error: unknown): void {
  const detail = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { error: String(error) }
  console.error(JSON.stringify({ level: 'error', msg: 'unexpected error', ...detail }))
}
