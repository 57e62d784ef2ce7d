import { createServer } from 'node:net'
import type { Server } from 'bun'
import packageJson from '../package.json' with { type: 'json' }
import { createApp } from './app'
import type { Io } from './command_line'
import { type Config, ConfigError } from './config'
import { STRICT_TRANSPORT_SECURITY } from './http/browser_safety'
import { checkHost } from './http/host'
import { BUN_DEFAULT_HEAD_BYTES, BUN_HEAD_SIZE_FLAG, BUN_MAX_BODY_BYTES, kib } from './http/limits'
import { readTlsPair, type TlsPair } from './http/tls'
import { issueFirstKey } from './keys/issue'
import { LastUseRecorder } from './keys/last_use'
import { PLAN_LIMITS } from './keys/plans'
import type { KeyStore } from './keys/store'
import { createLogger, type Logger } from './log'
import { startAdminListener } from './metrics/admin_listener'
import { meteredLimiter } from './metrics/metered_limiter'
import { ServiceMetrics } from './metrics/metrics'
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
  /** The admin listener's URL (`/metrics`, `/health`), with ADMIN_PORT. */
  adminUrl?: string
  /**
   * Reads TLS_CERT_FILE and TLS_KEY_FILE again and serves new connections
   * with them (SIGHUP); a bad pair is thrown and the old one kept. Only over HTTPS.
   */
  reloadTls?(): Promise<void>
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
  // Read first: a bad certificate or key stops the start before anything is opened.
  const tlsPair = config.tls === undefined ? undefined : await readTlsPair(config.tls)
  const stores = await openStores({ config, sqlitePath, serving: true })
  const logger = createLogger(config.logLevel)
  // Its sources are read at scrape time, once everything below exists.
  const metrics =
    config.adminPort === undefined
      ? undefined
      : new ServiceMetrics({
          limiterSizes: () => memory.sizes(),
          redisAnswers: config.redisUrl === undefined ? undefined : async () => (await limiter.health?.()) === 'ok',
          pageCache: stores.pageCacheLookups,
          bunVersion: Bun.version,
          version: packageJson.version,
        })
  const { limiter, memory } = await openLimiter(config, logger, io, metrics)
  // Counts and bans outlive a restart: read back now, written every few seconds and on stop.
  const keeper =
    limiter instanceof MemoryRateLimiter && stores.limiterState !== undefined
      ? keepLimiterState(limiter, stores.limiterState, { clock: Date.now, logger })
      : undefined
  const lastUse = new LastUseRecorder(stores.keys, logger)
  const health = {
    databaseAnswers: () => stores.pets.answers(),
    limiterHealth: () => limiter.health?.() ?? 'ok',
  }
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
    keys: stores.keys,
    limiter,
    publicUrl: config.publicUrl,
    corsOrigins: config.corsOrigins,
    metrics,
    https: tlsPair !== undefined,
    trustProxy: config.trustProxy,
    ipv6Prefix: config.ipv6Prefix,
    logger,
    lastUse,
    // Any listener can read any request's peer: the one that took it may be an older one after a TLS reload.
    socketAddress: (request) => server.requestIP(rebuilt.get(request) ?? request)?.address,
  })
  let draining = false
  // While stopping, every answer closes its connection, so no client reuses one the stop is about to close.
  const closingWhenDraining = (response: Response): Response => {
    if (draining) response.headers.set('connection', 'close')
    return response
  }
  // Requests without Host, given the service's own URL by checkHost, and the request Bun received.
  const rebuilt = new WeakMap<Request, Request>()
  // Every listener (a TLS reload adds one) has the same address; built only for a request without Host.
  const ownBase = () =>
    config.publicUrl ?? `${tlsPair === undefined ? 'http' : 'https'}://${browsable(server.hostname)}:${server.port}`
  const listen = (tls: TlsPair | undefined, port: number) =>
    Bun.serve({
      port,
      hostname: config.host,
      // A second server on a busy port must fail, not share it silently. Over HTTPS the port is shared on
      // purpose, with the next listener of a certificate reload only, after a check that nothing holds it.
      reusePort: tls !== undefined,
      tls,
      maxRequestBodySize: BUN_MAX_BODY_BYTES,
      // A client that stalls mid-request (or holds an idle keep-alive) is cut off after this.
      idleTimeout: config.idleTimeoutSeconds,
      // Not async: an answer the app makes at once goes back to Bun without a promise, which costs far less
      // (bench/README.md).
      fetch(received) {
        const request = checkHost(received, ownBase, tls !== undefined)
        if (request instanceof Response) {
          if (tls !== undefined) request.headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY)
          return request
        }
        // A request given a URL here is a new object: the app asks for its peer under the one Bun received.
        if (request !== received) rebuilt.set(request, received)
        const answered = app.fetch(request)
        return answered instanceof Promise ? answered.then(closingWhenDraining) : closingWhenDraining(answered)
      },
    })
  let server: Server<undefined>
  try {
    if (tlsPair !== undefined && config.port !== 0 && !(await portIsFree(config.host, config.port)))
      throw Object.assign(new Error('port in use'), { code: 'EADDRINUSE' })
    server = listen(tlsPair, config.port)
  } catch (error) {
    await release()
    throw listenError(error, config)
  }
  try {
    if (config.adminPort !== undefined && metrics !== undefined)
      admin = startAdminListener({
        host: config.adminHost,
        port: config.adminPort,
        metrics,
        health,
      })
  } catch (error) {
    server.stop(true)
    await release()
    throw adminListenError(error, config)
  }
  try {
    await announceKeys(stores.keys, io)
  } catch (error) {
    server.stop(true)
    await release()
    throw error
  }
  const url = `${tlsPair === undefined ? 'http' : 'https'}://${browsable(server.hostname)}:${server.port}`
  const adminUrl = admin === undefined ? undefined : `http://${browsable(admin.hostname)}:${admin.port}`
  io.err(
    `Animal Store listening on ${url} (database ${stores.description}; rate limits ${config.redisUrl ? 'in Redis' : 'in memory'})`,
  )
  if (adminUrl !== undefined) io.err(`Admin listener on ${adminUrl}: /metrics (Prometheus) and /health`)
  if (!process.execArgv.some((arg) => arg.startsWith('--max-http-header-size'))) {
    io.err(
      `Note: started without ${BUN_HEAD_SIZE_FLAG}: request heads over ${kib(BUN_DEFAULT_HEAD_BYTES)} get Bun's bare 431, not the JSON one`,
    )
  }
  const tlsFiles = config.tls
  return {
    url,
    adminUrl,
    reloadTls:
      tlsFiles === undefined
        ? undefined
        : async () => {
            // Bun cannot give a listener a new certificate (server.reload ignores tls: oven-sh/bun#43815), so a
            // new listener takes the port beside the old one, and the old one stops taking connections and
            // finishes those it has.
            const pair = await readTlsPair(tlsFiles)
            const previous = server
            server = listen(pair, previous.port as number)
            previous.stop().catch(() => {})
          },
    async stop(timeoutMs = SHUTDOWN_TIMEOUT_MS) {
      draining = true
      await Bun.sleep(Math.min(DRAIN_MS, timeoutMs))
      const finished = await Promise.race([server.stop().then(() => true), Bun.sleep(timeoutMs).then(() => false)])
      if (!finished) await server.stop(true)
      await release()
    },
  }
}

/** A wildcard address is not something to paste into a browser; loopback is. */
function browsable(hostname: string | undefined): string {
  return hostname === '0.0.0.0' || hostname === '::' || hostname === undefined ? 'localhost' : hostname
}

/** Whether nothing listens on the port: a probe without SO_REUSEPORT binds it and lets go. */
async function portIsFree(host: string, port: number): Promise<boolean> {
  const probe = createServer()
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}

/** Why the admin listener could not listen, as the setting to change. */
function adminListenError(error: unknown, { adminPort, adminHost }: Config): unknown {
  const code = (error as { code?: string }).code
  if (code === 'EADDRINUSE')
    return new ConfigError(
      'ADMIN_PORT',
      `port ${adminPort} on ${adminHost} is already in use; choose another ADMIN_PORT`,
    )
  if (code === 'EACCES')
    return new ConfigError('ADMIN_PORT', `port ${adminPort} needs more privileges than this process has`)
  if (code === 'EADDRNOTAVAIL' || code === 'EINVAL' || code === 'ENOTFOUND')
    return new ConfigError('ADMIN_HOST', `cannot listen on "${adminHost}": not an address of this machine`)
  return error
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

/**
 * The in-memory limiter, or with REDIS_URL the shared one, which starts even
 * while Redis is down; `memory` is the in-memory one (the limiter itself, or
 * Redis's fallback), whose size the metrics report.
 */
async function openLimiter(
  config: Config,
  logger: Logger,
  io: Io,
  metrics: ServiceMetrics | undefined,
): Promise<{ limiter: RateLimiter; memory: MemoryRateLimiter }> {
  const memory = new MemoryRateLimiter({ anonymousMax: config.anonSubjectsMax })
  if (config.redisUrl === undefined) return { limiter: memory, memory }
  const limiter = new RedisRateLimiter({
    url: config.redisUrl,
    failureMode: config.redisFailureMode,
    prefix: config.redisKeyPrefix,
    // Every request the fallback counts is one Redis did not: the metrics count them.
    fallback: metrics === undefined ? memory : meteredLimiter(memory, () => metrics.fallbackCounted()),
    logger,
  })
  if (!(await limiter.connect()))
    io.err(
      `Redis at REDIS_URL does not answer yet; until it does, REDIS_FAILURE_MODE=${config.redisFailureMode} applies`,
    )
  return { limiter, memory }
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
