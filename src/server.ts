import type { Database } from 'bun:sqlite'
import { createApp } from './app'
import { ConfigError, type Config } from './config'
import { openDatabase } from './db/open'
import type { Io } from './keys/cli'
import { issueKey } from './keys/issue'
import { PLAN_LIMITS } from './keys/plans'
import { SqliteKeyStore, type KeyStore } from './keys/store'
import { createLogger } from './log'
import { SqlitePetStore } from './pets/store'

/**
 * Bun's own ceiling on a request body. Bodies above 16 KiB get the JSON 413
 * from the app; only above this one does Bun answer with a bare 413 itself.
 */
export const BUN_MAX_BODY_BYTES = 1024 * 1024

/** A service that is listening. */
export interface RunningService {
  url: string
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  stop(): Promise<void>
}

/** Opens the database, makes the first key if there is none, and listens. */
export async function startService(config: Config, io: Io): Promise<RunningService> {
  const db = openOrExplain(config)
  const keys = new SqliteKeyStore(db)
  await createFirstKey(keys, io)
  const app = createApp({ pets: new SqlitePetStore(db), keys, publicUrl: config.publicUrl, trustProxy: config.trustProxy, logger: createLogger(config.logLevel) })
  // reusePort off: a second server on a busy port must fail, not share it silently.
  app.listen({ port: config.port, hostname: config.host, reusePort: false, maxRequestBodySize: BUN_MAX_BODY_BYTES })
  const server = app.server!
  // A wildcard address is not something to paste into a browser; loopback is.
  const host = server.hostname === '0.0.0.0' || server.hostname === '::' ? 'localhost' : server.hostname
  const url = `http://${host}:${server.port}`
  io.err(`Animal Store listening on ${url} (database ${config.databasePath})`)
  return {
    url,
    async stop() {
      await server.stop()
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
