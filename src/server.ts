import type { Database } from 'bun:sqlite'
import { createApp } from './app'
import { ConfigError, type Config } from './config'
import { openDatabase } from './db/open'
import type { Io } from './keys/cli'
import { issueKey } from './keys/issue'
import { PLAN_LIMITS } from './keys/plans'
import { SqliteKeyStore, type KeyStore } from './keys/store'
import { BUN_MAX_HEAD_BYTES } from './http/request_bounds'
import { createLogger } from './log'
import { CachedPetStore } from './pets/page_cache'
import { SqlitePetStore } from './pets/store'

/**
 * Bun's own ceiling on a request body. Bodies above 16 KiB get the JSON 413
 * from the app; only above this one does Bun answer with a bare 413 itself.
 */
export const BUN_MAX_BODY_BYTES = 1024 * 1024

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

/** Opens the database, makes the first key if there is none, and listens. */
export async function startService(config: Config, io: Io): Promise<RunningService> {
  const db = openOrExplain(config)
  const keys = new SqliteKeyStore(db)
  await createFirstKey(keys, io)
  const app = createApp({
    pets: new CachedPetStore(new SqlitePetStore(db), db),
    keys,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    logger: createLogger(config.logLevel),
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
  io.err(`Animal Store listening on ${url} (database ${config.databasePath})`)
  if (!process.execArgv.some((arg) => arg.startsWith('--max-http-header-size'))) {
    io.err(`Note: started without --max-http-header-size=${BUN_MAX_HEAD_BYTES}: request heads over 16 KiB get Bun's bare 431, not the JSON one`)
  }
  return {
    url,
    async stop(timeoutMs = SHUTDOWN_TIMEOUT_MS) {
      draining = true
      await Bun.sleep(Math.min(DRAIN_MS, timeoutMs))
      const finished = await Promise.race([server.stop().then(() => true), Bun.sleep(timeoutMs).then(() => false)])
      if (!finished) await server.stop(true)
      db.close()
    },
  }
}

function openOrExplain(config: Config): Database {
  try {
    return openDatabase(config.databasePath, config.synchronous)
  } catch (error) {
    throw new ConfigError('DATABASE_PATH', `cannot open "${config.databasePath}": ${(error as Error).message}`)
  }
}

/** On a database with no keys, makes one Free key and shows it once, as Elasticsearch does with its first password. */
async function createFirstKey(keys: KeyStore, io: Io): Promise<void> {
  if ((await keys.count()) > 0) return
  const { key, secret } = await issueKey(keys, { name: 'first key', plan: 'free', ...PLAN_LIMITS.free })
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
