import { createApp } from './app'
import type { Io } from './command_line'
import type { Config } from './config'
import { BUN_DEFAULT_HEAD_BYTES, BUN_HEAD_SIZE_FLAG, BUN_MAX_BODY_BYTES, kib } from './http/limits'
import { issueFirstKey } from './keys/issue'
import { PLAN_LIMITS } from './keys/plans'
import type { KeyStore } from './keys/store'
import { createLogger, type Logger } from './log'
import type { RateLimiter } from './ratelimit/limiter'
import { MemoryRateLimiter } from './ratelimit/memory_limiter'
import { RedisRateLimiter } from './ratelimit/redis_limiter'
import { keepLimiterState } from './ratelimit/snapshot'
import { openStores } from './stores'

/** How long a stop waits for in-flight requests before closing their connections. */
export const SHUTDOWN_TIMEOUT_MS = 10_000

/** A service that is listening. */
export interface RunningService {
  url: string
  /**
   * Stops accepting connections, lets in-flight requests finish (for at most
   * `timeoutMs`, then closes what is left), and closes the database.
   */
  stop(timeoutMs?: number): Promise<void>
}

/** How long a stop keeps serving, with `Connection: close`, so keep-alive clients leave cleanly. */
export const DRAIN_MS = 500

/** Opens the stores (`sqlitePath`: the `--db` option), makes the first key if there is none, connects the limiter, and listens. */
export async function startService(config: Config, io: Io, sqlitePath?: string): Promise<RunningService> {
  const stores = await openStores({ config, sqlitePath, serving: true })
  await createFirstKey(stores.keys, io)
  const logger = createLogger(config.logLevel)
  const limiter = await openLimiter(config, logger, io)
  // Counts and bans outlive a restart: read back now, written every few seconds and on stop.
  const keeper =
    limiter instanceof MemoryRateLimiter && stores.limiterState !== undefined
      ? keepLimiterState(limiter, stores.limiterState, { clock: Date.now, logger })
      : undefined
  const app = createApp({
    pets: stores.pets,
    keys: stores.keys,
    limiter,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    ipv6Prefix: config.ipv6Prefix,
    logger,
    socketAddress: (request) => server.requestIP(request)?.address,
  })
  let draining = false
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    // A second server on a busy port must fail, not share it silently.
    reusePort: false,
    maxRequestBodySize: BUN_MAX_BODY_BYTES,
    // A client that stalls mid-request (or holds an idle keep-alive) is cut off after this.
    idleTimeout: config.idleTimeoutSeconds,
    async fetch(request) {
      const response = await app.fetch(request)
      // While stopping, every answer closes its connection, so no client reuses one the stop is about to close.
      if (draining) response.headers.set('connection', 'close')
      return response
    },
  })
  // A wildcard address is not something to paste into a browser; loopback is.
  const host = server.hostname === '0.0.0.0' || server.hostname === '::' ? 'localhost' : server.hostname
  const url = `http://${host}:${server.port}`
  io.err(
    `Animal Store listening on ${url} (database ${stores.description}; rate limits ${config.redisUrl ? 'in Redis' : 'in memory'})`,
  )
  if (!process.execArgv.some((arg) => arg.startsWith('--max-http-header-size'))) {
    io.err(
      `Note: started without ${BUN_HEAD_SIZE_FLAG}: request heads over ${kib(BUN_DEFAULT_HEAD_BYTES)} get Bun's bare 431, not the JSON one`,
    )
  }
  return {
    url,
    async stop(timeoutMs = SHUTDOWN_TIMEOUT_MS) {
      draining = true
      await Bun.sleep(Math.min(DRAIN_MS, timeoutMs))
      const finished = await Promise.race([server.stop().then(() => true), Bun.sleep(timeoutMs).then(() => false)])
      if (!finished) await server.stop(true)
      keeper?.stop()
      limiter.close?.()
      await stores.close()
    },
  }
}

/** The in-memory limiter, or with REDIS_URL the shared one, which starts even while Redis is down. */
async function openLimiter(config: Config, logger: Logger, io: Io): Promise<RateLimiter> {
  if (config.redisUrl === undefined) return new MemoryRateLimiter({ anonymousMax: config.anonSubjectsMax })
  const limiter = new RedisRateLimiter({
    url: config.redisUrl,
    failureMode: config.redisFailureMode,
    prefix: config.redisKeyPrefix,
    fallback: new MemoryRateLimiter({ anonymousMax: config.anonSubjectsMax }),
    logger,
  })
  if (!(await limiter.connect()))
    io.err(
      `Redis at REDIS_URL does not answer yet; until it does, REDIS_FAILURE_MODE=${config.redisFailureMode} applies`,
    )
  return limiter
}

/** On a database with no keys, makes one Free key and shows it once, as Elasticsearch does with its first password. */
async function createFirstKey(keys: KeyStore, io: Io): Promise<void> {
  const issued = await issueFirstKey(keys, { name: 'first key', plan: 'free', ...PLAN_LIMITS.free })
  if (issued === undefined) return
  const { key, secret } = issued
  io.err(
    [
      '',
      `No API keys yet, so one Free key (id ${key.id}) was created. It is shown only this once:`,
      '',
      `  ${secret}`,
      '',
      `Call the API with "Authorization: Bearer <key>". Make more keys with`,
      `  npm run keys -- create --plan pro --name NAME     (from the source tree)`,
      `  animal-store keys create --plan pro --name NAME   (with the binary)`,
      '',
    ].join('\n'),
  )
}
