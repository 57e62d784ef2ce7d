import { Elysia } from 'elysia'
import { apiGuard } from './auth/guard'
import type { CorsOrigins } from './config'
import { FaultLog } from './db/fault_log'
import { docsRoutes } from './docs/routes'
import { type HealthChecks, healthChecks, healthRoutes } from './health/routes'
import { allowedMethods } from './http/allowed_methods'
import { browserSafety } from './http/browser_safety'
import { Callers } from './http/callers'
import { clientAddress } from './http/client_address'
import { cors } from './http/cors'
import { errorMapper } from './http/error_mapper'
import { everyResponse, type ResponseStep } from './http/every_response'
import { requestBounds } from './http/request_bounds'
import { requestLog } from './http/request_log'
import { LastUseRecorder } from './keys/last_use'
import type { KeyStore } from './keys/store'
import { errorFields, type Logger } from './log'
import { meteredLimiter } from './metrics/metered_limiter'
import type { ServiceMetrics } from './metrics/metrics'
import { requestMetrics } from './metrics/request_metrics'
import { orderRoutes } from './orders/routes'
import type { OrderStore } from './orders/store'
import { petChangeRoutes } from './pets/change_routes'
import { getPetDeprecation } from './pets/deprecation'
import { petRoutes } from './pets/routes'
import type { PetStore } from './pets/store'
import type { RateLimiter } from './ratelimit/limiter'
import { MemoryRateLimiter } from './ratelimit/memory_limiter'
import { QuotaReadings } from './ratelimit/quota_readings'
import { rateLimitRoutes } from './ratelimit/routes'
import { quotaSettlement } from './ratelimit/settle'
import { DEFAULT_IPV6_PREFIX, keySubject, quotaResetName } from './ratelimit/subject'

/** Everything the app is built from; tests pass their own. */
export interface AppDeps {
  pets: PetStore
  /** Where orders live: beside the pets, in the same database (backends.ts opens both). */
  orders: OrderStore
  keys: KeyStore
  /** Counts requests per key or address; a fresh in-memory one when absent. */
  limiter?: RateLimiter
  /** Milliseconds since the epoch; `Date.now` when absent. */
  clock?: () => number
  /** Whether the first `X-Forwarded-For` hop names the client (TRUST_PROXY). */
  trustProxy?: boolean
  /** Callers without a key on IPv6 are counted per network of this many bits (IPV6_PREFIX); 64 when absent. */
  ipv6Prefix?: number
  /** The socket peer of a request; by default asked of the server `app.listen` started. */
  socketAddress?: (request: Request) => string | undefined
  /** Public base URL without `/v1`; when absent, derived from each request. */
  publicUrl?: string
  /** Request lines and unexpected errors go here. */
  logger: Logger
  /** Keeps when each key was last used; one writing to `keys` when absent. */
  lastUse?: LastUseRecorder
  /** Origins whose pages may call the API (CORS_ORIGINS); no CORS headers when absent. */
  corsOrigins?: CorsOrigins
  /** The Prometheus metrics (with ADMIN_PORT); when absent, no request does any metrics work. */
  metrics?: ServiceMetrics
  /** What `/health` asks; the pet store and the limiter when absent (the server passes the checks its admin listener shares). */
  health?: HealthChecks
  /** Whether requests come over HTTPS (their URLs start with `https://`, every answer says Strict-Transport-Security); plain HTTP when absent. */
  https?: boolean
}

/**
 * The one Elysia chain, in the order a request meets it: one wrap runs
 * the metrics, the browser's safe defaults and the request log around every
 * response, and CORS wraps everything inside it (a preflight is
 * answered there, before the guard, whose wrap is innermost: with a limiter
 * that may answer later it decides there, before the chain); errors are
 * mapped first (so validation failures become 400s), the guard
 * authenticates and rate-limits, oversized requests are refused, then the
 * routes. `normalize: false` makes unknown properties a
 * 400 instead of silently stripping them.
 */
export function createApp(deps: AppDeps) {
  // Elysia finds the path by searching for "/" from a fixed index: 7 with standardHostname off (right after
  // "http://", so any Host works), 11 with it on (after "https://" and a host of at least three characters:
  // from 7 it would find the second slash of "https://"). Over HTTPS a shorter Host is refused at the
  // listener (http/listener.ts).
  const app = new Elysia({ normalize: false, handler: { standardHostname: deps.https === true } })
  const callers = new Callers()
  const quotaReadings = new QuotaReadings()
  const { logger } = deps
  const clock = deps.clock ?? Date.now
  const { metrics } = deps
  const unmetered: RateLimiter = deps.limiter ?? new MemoryRateLimiter()
  const limiter =
    metrics === undefined
      ? unmetered
      : meteredLimiter(unmetered, (decision) => {
          if (decision.refusal !== undefined) metrics.refused(decision.refusal)
        })
  const settleQuota = quotaSettlement({ limiter, callers, clock })
  const trustProxy = deps.trustProxy ?? false
  const socketAddress = deps.socketAddress ?? ((request: Request) => app.server?.requestIP(request)?.address)
  const faults = new FaultLog(logger, clock)
  // `keys unban`, seen through the key store's change notice: the key's quota starts afresh here.
  deps.keys.onQuotaReset((key) => {
    const reset = async () => limiter.reset(keySubject(key), quotaResetName(key), clock())
    reset().catch((error) => logger.warn('could not reset a key quota', { keyId: key.id, ...errorFields(error) }))
  })
  const guard = apiGuard({
    callers,
    keys: deps.keys,
    limiter,
    clock,
    trustProxy,
    ipv6Prefix: deps.ipv6Prefix ?? DEFAULT_IPV6_PREFIX,
    socketAddress,
    lastUse: deps.lastUse ?? new LastUseRecorder(deps.keys, logger),
    quotaReadings,
  })
  return (
    app
      // Wraps: one used later wraps those before it. The guard decides innermost, after a preflight CORS answers
      // uncounted; that preflight is still logged, safe and counted by the wrap around every response.
      .use(guard.deciding)
      .use(deps.corsOrigins === undefined ? new Elysia({ name: 'cors-off' }) : cors(deps.corsOrigins))
      // Started in this order, finished in reverse: the metrics time everything and see the final status.
      .use(
        everyResponse('every-response', [
          ...(metrics === undefined ? [] : [requestMetrics(metrics) as ResponseStep]),
          browserSafety({ https: deps.https === true }) as ResponseStep,
          requestLog({
            logger,
            callers,
            clientOf: (request) => clientAddress(request, socketAddress(request), trustProxy),
          }) as ResponseStep,
        ]),
      )
      .use(
        errorMapper({
          allowedMethods: allowedMethods(() => app.routes),
          reportUnexpected: (error) => logger.error('unexpected error', errorFields(error)),
          // Our own 500 or 503 costs the caller no quota; a conditional GET's error answer is counted now.
          settle: settleQuota,
          settlesAtOnce: limiter.answersAtOnce === true,
          storeUnavailable: (error) => {
            metrics?.databaseError()
            faults.report(error)
          },
        }),
      )
      .use(getPetDeprecation({ publicUrl: deps.publicUrl }))
      .use(guard.applying)
      .use(requestBounds())
      .use(
        petRoutes({
          pets: deps.pets,
          callers,
          clock,
          publicUrl: deps.publicUrl,
          settleQuota,
          listsAtOnce: deps.pets.listsAtOnce === true && limiter.answersAtOnce === true,
        }),
      )
      .use(petChangeRoutes({ pets: deps.pets, settleQuota }))
      .use(orderRoutes({ orders: deps.orders, callers, clock, publicUrl: deps.publicUrl, settleQuota }))
      .use(rateLimitRoutes({ callers, readings: quotaReadings }))
      .use(docsRoutes({ app: () => app, publicUrl: deps.publicUrl }))
      .use(healthRoutes(deps.health ?? healthChecks(deps.pets, limiter)))
  )
}
