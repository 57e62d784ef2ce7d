import type { Database } from 'bun:sqlite'
import { type Config, ConfigError, StorageSettingError } from './config'
import { DataVersionWatcher } from './db/data_version'
import { GroupCommit } from './db/group_commit'
import { openPostgres, redactedUrl } from './db/postgres'
import { DamagedDatabaseError, openDatabase, SERVER_BUSY_TIMEOUT_MS, SQLITE_BUSY_TIMEOUT_MS } from './db/sqlite'
import { TurnReads } from './db/turn_reads'
import { closeDatabase, ForeignWalError } from './db/wal_ownership'
import { KEY_POLL_MS, PostgresKeyStore } from './keys/postgres_store'
import { SqliteKeyStore } from './keys/sqlite_store'
import type { KeyStore } from './keys/store'
import type { Logger } from './log'
import { meteredLimiter } from './metrics/metered_limiter'
import { PostgresOrderStore } from './orders/postgres_store'
import { markingOrderChanges } from './orders/shared_changes'
import { SqliteOrderStore } from './orders/sqlite_store'
import type { OrderStore } from './orders/store'
import { CachedPetStore } from './pets/page_cache'
import { PostgresPetStore } from './pets/postgres_store'
import { SharedPageCache } from './pets/shared_page_cache'
import { SqlitePetStore } from './pets/sqlite_store'
import type { PetStore } from './pets/store'
import type { RateLimiter } from './ratelimit/limiter'
import { MemoryRateLimiter } from './ratelimit/memory_limiter'
import { RedisRateLimiter } from './ratelimit/redis_limiter'
import type { LimiterStateStore } from './ratelimit/snapshot'
import { SqliteLimiterStateStore } from './ratelimit/sqlite_state_store'

// Every backend of a running service is chosen here: the stores by DATABASE_URL, the limiter by REDIS_URL.

/** Where pets and keys live, opened together; `close` releases the database. */
export interface Stores {
  pets: PetStore
  orders: OrderStore
  keys: KeyStore
  /** Which database, for the start-up line (no password). */
  description: string
  /** Where the in-memory limiter keeps its state across restarts: the SQLite file; none with PostgreSQL. */
  limiterState?: LimiterStateStore
  /** The page cache's hits and misses since start (SQLite, or PostgreSQL with Redis), for the metrics. */
  pageCacheLookups?: () => { hits: number; misses: number }
  close(): Promise<void>
}

/** What to open: the configuration, and for the CLI a `--db` file that overrides it. */
export interface StoreChoice {
  config: Pick<Config, 'databasePath' | 'databaseUrl' | 'databasePoolSize' | 'synchronous'>
  /** The `--db` option, for SQLite only. */
  sqlitePath?: string
  /** Whether to keep keys fresh (a server) or read them once (a CLI command). */
  serving: boolean
}

/**
 * PostgreSQL when DATABASE_URL is set, for several instances; otherwise the
 * SQLite file, with first pages cached and creates group-committed.
 */
export async function openStores({ config, sqlitePath, serving }: StoreChoice): Promise<Stores> {
  if (config.databaseUrl !== undefined) {
    if (sqlitePath !== undefined)
      throw new ConfigError('DATABASE_URL', '--db names a SQLite file; unset DATABASE_URL to use one')
    const description = redactedUrl(config.databaseUrl)
    const sql = await openOrExplain('DATABASE_URL', description, () =>
      openPostgres(config.databaseUrl!, { max: serving ? config.databasePoolSize : 1 }),
    )
    const keys = await PostgresKeyStore.open(sql, { pollMs: serving ? KEY_POLL_MS : undefined })
    return {
      pets: new PostgresPetStore(sql),
      orders: new PostgresOrderStore(sql),
      keys,
      description,
      async close() {
        keys.close()
        await sql.close()
      },
    }
  }
  const path = sqlitePath ?? config.databasePath
  const db = openSqliteOrExplain(path, () =>
    openDatabase(path, {
      synchronous: config.synchronous,
      busyTimeoutMs: serving ? SERVER_BUSY_TIMEOUT_MS : SQLITE_BUSY_TIMEOUT_MS,
      serving,
    }),
  )
  const { pets, orders, keys, close } = sqliteStores(db)
  return {
    pets,
    orders,
    pageCacheLookups: () => pets.lookups(),
    keys,
    description: path,
    limiterState: new SqliteLimiterStateStore(db),
    async close() {
      close()
    },
  }
}

/** The stores on one SQLite database, composed as a service uses them (tests and probes build theirs here too). */
export function sqliteStores(db: Database) {
  // One watcher for the file: the key map and the page cache both reload when another process writes it.
  const watcher = new DataVersionWatcher(db)
  // The pet reads of one turn share a snapshot and the page cache's version check.
  const reads = new TurnReads(db, watcher)
  // One group commit for the file: an order and its pet change in one transaction, in the order they came.
  const writes = new GroupCommit(db, reads)
  const pets = new CachedPetStore(new SqlitePetStore(db, writes, reads), reads)
  // The page cache drops the pages an order's change to a pet alters, as it does for the pets' own changes.
  const orders = new SqliteOrderStore(db, writes, (before, after) => pets.petChanged(before, after))
  const keys = new SqliteKeyStore(db, { watcher })
  /** Closes `db` and what these stores hold on it: the reads' connection first, so `db`'s is the file's last. */
  const close = () => {
    reads.close()
    closeDatabase(db)
    watcher.close()
  }
  return { pets, orders, keys, close }
}

async function openOrExplain<T>(variable: string, where: string, open: () => T | Promise<T>): Promise<T> {
  try {
    return await open()
  } catch (error) {
    throw new ConfigError(variable, `cannot open "${where}": ${(error as Error).message}`)
  }
}

/**
 * Opens the SQLite file, any failure one line naming DATABASE_PATH: a
 * "Storage error", since the path is fine and the file or disk is not.
 */
function openSqliteOrExplain(path: string, open: () => Database): Database {
  try {
    return open()
  } catch (error) {
    if (error instanceof DamagedDatabaseError || error instanceof ForeignWalError)
      throw new StorageSettingError('DATABASE_PATH', error.message)
    const code = (error as { code?: unknown }).code
    const reason = typeof code === 'string' && code.startsWith('SQLITE_') ? ` (${code})` : ''
    throw new StorageSettingError('DATABASE_PATH', `cannot open "${path}": ${(error as Error).message}${reason}`)
  }
}

/**
 * PostgreSQL with Redis: each instance keeps pages, checked against the
 * store's version that every request's limiter call reads, and every write
 * sets a new one (pets/shared_page_cache.ts). Otherwise the stores as they are
 * (SQLite has its own cache; PostgreSQL alone reads every page).
 */
export function withSharedPageCache(
  stores: Stores,
  config: Pick<Config, 'databaseUrl'>,
  limiter: RateLimiter,
  logger: Logger,
): Stores {
  if (config.databaseUrl === undefined || !(limiter instanceof RedisRateLimiter)) return stores
  const pets = new SharedPageCache(stores.pets, limiter, logger)
  return {
    ...stores,
    pets,
    orders: markingOrderChanges(stores.orders, pets),
    pageCacheLookups: () => pets.lookups(),
    async close() {
      pets.close()
      await stores.close()
    },
  }
}

/** The limiter a service counts with, and the in-memory one inside it. */
export interface Limiters {
  limiter: RateLimiter
  /** The in-memory limiter: the limiter itself, or Redis's fallback; the metrics report its size. */
  memory: MemoryRateLimiter
}

/** What opening the limiter needs besides the configuration. */
export interface LimiterChoice {
  logger: Logger
  /** Where a line for the operator goes (the start-up lines, on stderr). */
  say: (line: string) => void
  /** Told of every request the fallback counts while Redis is out of reach (the metrics count them). */
  fallbackCounted?: () => void
}

/**
 * The in-memory limiter, or with REDIS_URL the shared one, which starts even
 * while Redis is down (REDIS_FAILURE_MODE applies until it answers).
 */
export async function openLimiter(
  config: Pick<Config, 'anonSubjectsMax' | 'redisUrl' | 'redisFailureMode' | 'redisKeyPrefix'>,
  { logger, say, fallbackCounted }: LimiterChoice,
): Promise<Limiters> {
  const memory = new MemoryRateLimiter({ anonymousMax: config.anonSubjectsMax })
  if (config.redisUrl === undefined) return { limiter: memory, memory }
  const limiter = new RedisRateLimiter({
    url: config.redisUrl,
    failureMode: config.redisFailureMode,
    prefix: config.redisKeyPrefix,
    anonymousMax: config.anonSubjectsMax,
    fallback: fallbackCounted === undefined ? memory : meteredLimiter(memory, fallbackCounted),
    logger,
  })
  if (!(await limiter.connect()))
    say(`Redis at REDIS_URL does not answer yet; until it does, REDIS_FAILURE_MODE=${config.redisFailureMode} applies`)
  return { limiter, memory }
}
