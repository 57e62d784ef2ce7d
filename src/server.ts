import type { Server } from 'bun'
import { createApp } from './app'
import type { Io } from './command_line'
import { type Config, ConfigError } from './config'
import { BUN_DEFAULT_HEAD_BYTES, BUN_HEAD_SIZE_FLAG, BUN_MAX_BODY_BYTES, kib } from './http/limits'
import { issueFirstKey } from './keys/issue'
import { LastUseRecorder } from './keys/last_use'
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

/**
 * Opens the stores (`sqlitePath`: the `--db` option), connects the limiter,
 * listens, and only then makes the first key if there is none, so a start
 * that cannot listen (a port in use) never makes a key nobody sees.
 */
export async function startService(config: Config, io: Io, sqlitePath?: string): Promise<RunningService> {
  const stores = await openStores({ config, sqlitePath, serving: true })
  const logger = createLogger(config.logLevel)
  const limiter = await openLimiter(config, logger, io)
  // Counts and bans outlive a restart: read back now, written every few seconds and on stop.
  const keeper =
    limiter instanceof MemoryRateLimiter && stores.limiterState !== undefined
      ? keepLimiterState(limiter, stores.limiterState, { clock: Date.now, logger })
      : undefined
  const lastUse = new LastUseRecorder(stores.keys, logger)
  const release = async () => {
    keeper?.stop()
    await lastUse.flush()
    limiter.close?.()
    await stores.close()
  }
  const app = createApp({
    pets: stores.pets,
    keys: stores.keys,
    limiter,
    publicUrl: config.publicUrl,
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    ipv6Prefix: config.ipv6Prefix,
    logger,
    lastUse,
    socketAddress: (request) => server.requestIP(request)?.address,
  })
  let draining = false
  let server: Server<undefined>
  try {
    server = Bun.serve({
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
  } catch (error) {
    await release()
    throw listenError(error, config)
  }
  try {
    await announceKeys(stores.keys, io)
  } catch (error) {
    server.stop(true)
    await release()
    throw error
  }
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
      await release()
    },
  }
}

/** Why Bun could not listen, as the setting to change: a busy or forbidden port, or an address this host lacks. */
function listenError(error: unknown, { port, host }: Config): unknown {
  switch ((error as { code?: string }).code) {
    case 'EADDRINUSE':
      return new ConfigError(
        'PORT',
        `port ${port} on ${host} is already in use; stop what holds it or choose another PORT`,
      )
    case 'EACCES':
      return new ConfigError(
        'PORT',
        `port ${port} needs more privileges than this process has; choose a PORT above 1023`,
      )
    case 'EADDRNOTAVAIL':
    case 'EINVAL':
    case 'ENOTFOUND':
      return new ConfigError('HOST', `cannot listen on "${host}": not an address of this machine`)
    default:
      return error
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

/**
 * On a database with no keys, makes one Free key and shows it once, as
 * Elasticsearch does with its first password; on one with keys, says how to
 * make another (a key that was made but never seen is then easy to replace).
 */
async function announceKeys(keys: KeyStore, io: Io): Promise<void> {
  const issued = await issueFirstKey(keys, { name: 'first key', plan: 'free', ...PLAN_LIMITS.free })
  if (issued === undefined) {
    io.err(`API keys exist; to make another: ${KEY_COMMANDS.source}, or ${KEY_COMMANDS.binary}`)
    return
  }
  const { key, secret } = issued
  io.err(
    [
      '',
      `No API keys yet, so one Free key (id ${key.id}) was created. It is shown only this once:`,
      '',
      `  ${secret}`,
      '',
      `Call the API with "Authorization: Bearer <key>". Make more keys with`,
      `  ${KEY_COMMANDS.source}     (from the source tree)`,
      `  ${KEY_COMMANDS.binary}   (with the binary)`,
      '',
    ].join('\n'),
  )
}

/** How to make a key, from the source tree and with the binary. */
const KEY_COMMANDS = {
  source: 'npm run keys -- create --plan pro --name NAME',
  binary: 'animal-store keys create --plan pro --name NAME',
}
