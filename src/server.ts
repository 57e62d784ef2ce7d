import type { Server } from 'bun'
import { createApp } from './app'
import { openLimiter, openStores, withSharedPageCache } from './backends'
import type { Config } from './config'
import { healthChecks } from './health/routes'
import { BUN_DEFAULT_HEAD_BYTES, BUN_HEAD_SIZE_FLAG, kib } from './http/limits'
import { Listener, urlOf } from './http/listener'
import { readTlsPair } from './http/tls'
import { announceFirstKey } from './keys/issue'
import { LastUseRecorder } from './keys/last_use'
import { createLogger } from './log'
import { startAdminListener } from './metrics/admin_listener'
import { ServiceMetrics } from './metrics/metrics'
import { MemoryRateLimiter } from './ratelimit/memory_limiter'
import { keepLimiterState } from './ratelimit/snapshot'
import { VERSION } from './version'

/** How long a stop waits for in-flight requests before closing their connections. */
export const SHUTDOWN_TIMEOUT_MS = 10_000

/** A service that is listening. */
export interface RunningService {
  url: string
  /** The admin listener's URL (`/metrics`, `/health`), with ADMIN_PORT. */
  adminUrl?: string
  /** Reads the certificate and key again for new connections (SIGHUP); a bad pair is thrown, the old one kept. HTTPS only. */
  reloadTls?(): Promise<void>
  /** Stops taking connections, lets in-flight requests finish (at most `timeoutMs`), and closes the database. */
  stop(timeoutMs?: number): Promise<void>
}

/**
 * Starts the service, in this order: reads the certificate, opens the
 * stores and the limiter, builds the app, listens, and only then makes the
 * first key if there is none, so a start that cannot listen (a port in use)
 * never makes a key nobody sees. `say` takes the lines for the operator;
 * `sqlitePath` is the `--db` option.
 */
export async function startService(
  config: Config,
  say: (line: string) => void,
  sqlitePath?: string,
): Promise<RunningService> {
  // Read first: a bad certificate or key stops the start before anything is opened.
  const tls = config.tls === undefined ? undefined : await readTlsPair(config.tls)
  const opened = await openStores({ config, sqlitePath, serving: true })
  const logger = createLogger(config.logLevel)
  // Its sources are read at scrape time, once everything below exists.
  const metrics =
    config.adminPort === undefined
      ? undefined
      : new ServiceMetrics({
          limiterSizes: () => memory.sizes(),
          redisAnswers: config.redisUrl === undefined ? undefined : async () => (await limiter.health?.()) === 'ok',
          pageCache: opened.pageCacheLookups ?? (config.redisUrl === undefined ? undefined : () => pageLookups()),
          bunVersion: Bun.version,
          version: VERSION,
        })
  const { limiter, memory } = await openLimiter(config, {
    logger,
    say,
    fallbackCounted: metrics && (() => metrics.fallbackCounted()),
  })
  const stores = withSharedPageCache(opened, config, limiter, logger)
  const pageLookups = () => stores.pageCacheLookups?.() ?? { hits: 0, misses: 0 }
  // Counts and bans outlive a restart: read back now, written every few seconds and on stop.
  const keeper =
    limiter instanceof MemoryRateLimiter && stores.limiterState !== undefined
      ? keepLimiterState(limiter, stores.limiterState, { clock: Date.now, logger })
      : undefined
  const lastUse = new LastUseRecorder(stores.keys, logger)
  const listener = new Listener(config, tls)
  // Readiness turns to 503 the moment the stop begins, while the listener still answers.
  const health = healthChecks(stores.pets, limiter, () => listener.draining)
  let admin: Server<undefined> | undefined
  const release = async () => {
    admin?.stop(true)
    keeper?.stop()
    await lastUse.flush()
    limiter.close?.()
    await stores.close()
  }
  const app = createApp({
    pets: stores.pets,
    orders: stores.orders,
    keys: stores.keys,
    limiter,
    publicUrl: config.publicUrl,
    corsOrigins: config.corsOrigins,
    metrics,
    health,
    https: tls !== undefined,
    trustProxy: config.trustProxy,
    ipv6Prefix: config.ipv6Prefix,
    logger,
    lastUse,
    socketAddress: listener.peerOf,
  })
  try {
    await listener.listen(app.fetch)
  } catch (error) {
    await release()
    throw error
  }
  try {
    if (config.adminPort !== undefined && metrics !== undefined)
      admin = startAdminListener({ host: config.adminHost, port: config.adminPort, metrics, health })
    await announceFirstKey(stores.keys, say)
  } catch (error) {
    listener.stopNow()
    await release()
    throw error
  }
  const adminUrl = admin === undefined ? undefined : urlOf(admin, 'http')
  const backends = `database ${stores.description}; rate limits ${config.redisUrl ? 'in Redis' : 'in memory'}`
  say(`Animal Store listening on ${listener.url} (${backends})`)
  if (adminUrl !== undefined)
    say(`Admin listener on ${adminUrl}: /metrics (Prometheus) and /health (with /live and /ready)`)
  if (!process.execArgv.some((arg) => arg.startsWith('--max-http-header-size')))
    say(
      `Note: started without ${BUN_HEAD_SIZE_FLAG}: request heads over ${kib(BUN_DEFAULT_HEAD_BYTES)} get Bun's bare 431, not the JSON one`,
    )
  return {
    url: listener.url,
    adminUrl,
    reloadTls: tls === undefined ? undefined : () => listener.reloadTls(),
    async stop(timeoutMs = SHUTDOWN_TIMEOUT_MS) {
      await listener.stop(timeoutMs)
      await release()
    },
  }
}
