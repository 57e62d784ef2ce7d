import { openStores } from '../backends'
import { type Config, ConfigError, ENV_DEFAULTS, loadConfig, REDIS_FAILURE_MODES, SYNCHRONOUS_MODES } from '../config'
import { backupDatabase } from '../db/backup'
import { restoreDatabase } from '../db/restore'
import { openDatabase } from '../db/sqlite'
import { closeDatabase } from '../db/wal_ownership'
import { describePlans } from '../keys/plans'
import type { ApiKey } from '../keys/store'
import { createLogger } from '../log'
import { MemoryRateLimiter } from '../ratelimit/memory_limiter'
import { RedisRateLimiter } from '../ratelimit/redis_limiter'
import { keySubject, quotaResetName } from '../ratelimit/subject'
import { type RunningService, startService } from '../server'
import { VERSION } from '../version'
import { EXIT_USAGE, type Io, parseCommandLine, UsageError } from './command_line'
import { KEYS_USAGE, KEYS_USAGE_NOTES, runKeysCommand } from './keys_commands'

const defaults = ENV_DEFAULTS

/** What `--help` prints; defaults and plans as the code has them. */
export const USAGE = `Usage:
  animal-store serve [--db PATH]
${KEYS_USAGE}
  animal-store backup FILE [--db PATH]      a consistent copy of the database, safe while serving
  animal-store restore FILE [--db PATH]     put a backup in place (the server stopped; the old file is kept beside)
  animal-store --version                    the version

Plans, requests per minute/per day: ${describePlans()}.
--rpm and --rpd (requests per minute and per day) are required with the enterprise plan and refused with the others.
${KEYS_USAGE_NOTES}
Environment: PORT (${defaults.PORT}), HOST (${defaults.HOST}), DATABASE_PATH (${defaults.DATABASE_PATH}), PUBLIC_URL,
TRUST_PROXY (${defaults.TRUST_PROXY}), IPV6_PREFIX (${defaults.IPV6_PREFIX}: callers without a key on IPv6 are counted per /N),
ANON_SUBJECTS_MAX (${defaults.ANON_SUBJECTS_MAX}: callers without a key held by the in-memory limiter), LOG_LEVEL (${defaults.LOG_LEVEL}), SQLITE_SYNCHRONOUS (${SYNCHRONOUS_MODES.join('|')}; ${defaults.SQLITE_SYNCHRONOUS}), HTTP_IDLE_TIMEOUT (${defaults.HTTP_IDLE_TIMEOUT}).
Several instances: DATABASE_URL (postgres://…, instead of DATABASE_PATH), DATABASE_POOL_SIZE (${defaults.DATABASE_POOL_SIZE}), REDIS_URL (redis://…),
REDIS_FAILURE_MODE (${REDIS_FAILURE_MODES.join('|')}; ${defaults.REDIS_FAILURE_MODE}: while Redis is unreachable, limit per instance or answer 503),
REDIS_KEY_PREFIX (${defaults.REDIS_KEY_PREFIX}).
Browsers: CORS_ORIGINS (unset: no CORS headers; * or origins separated by commas, whose pages may call /v1).
HTTPS: TLS_CERT_FILE and TLS_KEY_FILE (PEM, both or neither; SIGHUP reads them again).
Metrics: ADMIN_PORT (unset: off; a second listener with /metrics and /health), ADMIN_HOST (${defaults.ADMIN_HOST}).`

/** The process's standard streams as an `Io`. */
const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}

/**
 * Runs one command line. Resolves to the exit status, or to the running
 * service for `serve`, which keeps the process alive.
 */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: Io = processIo,
): Promise<number | RunningService> {
  try {
    const [command, ...rest] = argv
    switch (command) {
      case 'serve':
        return await startService(loadConfig(env), (line) => io.err(line), serveDbOption(rest))
      case 'keys': {
        const config = loadConfig(env)
        const done = await runKeysCommand(rest, {
          openStores: (sqlitePath) => openStores({ config, sqlitePath, serving: false }),
          resetSharedQuota: config.redisUrl === undefined ? undefined : (key) => resetInRedis(config, key),
          io,
        })
        if (done !== 'help') return done
        io.out(USAGE)
        return 0
      }
      case 'backup': {
        const { file, sqlite, config } = fileCommand('backup', rest, env, 'pg_dump')
        return reportOutcome(io, 'Backup', () => {
          const db = openDatabase(sqlite, { synchronous: config.synchronous })
          try {
            backupDatabase(db, file)
          } finally {
            closeDatabase(db)
          }
          return `Backed up ${sqlite} to ${file}`
        })
      }
      case 'restore': {
        const { file, sqlite } = fileCommand('restore', rest, env, 'pg_restore')
        return reportOutcome(io, 'Restore', () => {
          const { replacedKeptAs, carried } = restoreDatabase(file, sqlite)
          const kept = replacedKeptAs ? `; the database it replaced is kept as ${replacedKeptAs}` : ''
          return [`Restored ${file} as ${sqlite}${kept}`, ...carried].join('\n')
        })
      }
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return 0
      case '--version':
        io.out(`animal-store ${VERSION}`)
        return 0
      default:
        throw new UsageError(command === undefined ? 'Missing command' : `Unknown command "${command}"`)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message} (animal-store --help shows the usage)`)
      return EXIT_USAGE
    }
    if (error instanceof ConfigError) {
      io.err(`${error.label}: ${error.message}`)
      return EXIT_USAGE
    }
    throw error
  }
}

/**
 * The arguments of `backup` and `restore`: one FILE, optionally `--db PATH`,
 * and the SQLite file they work on (refused with PostgreSQL, which has its
 * own tool, `postgresTool`).
 */
function fileCommand(
  command: string,
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  postgresTool: string,
): { file: string; sqlite: string; config: Config } {
  const parsed = parseCommandLine(args, { db: { type: 'string' } })
  const [file, ...extra] = parsed.positionals
  if (file === undefined || extra.length > 0) throw new UsageError(`${command} takes one FILE and optionally --db PATH`)
  const config = loadConfig(env)
  if (config.databaseUrl !== undefined)
    throw new ConfigError('DATABASE_URL', `${command} works on the SQLite file; for PostgreSQL use ${postgresTool}`)
  return { file, sqlite: parsed.values.db ?? config.databasePath, config }
}

/** Runs `work`: its line on stderr and exit 0, or "<what> failed: <reason>" and exit 1. */
function reportOutcome(io: Io, what: string, work: () => string): number {
  try {
    io.err(work())
    return 0
  } catch (error) {
    io.err(`${what} failed: ${(error as Error).message}`)
    return 1
  }
}

/** The `--db PATH` of `serve`, if given. */
function serveDbOption(args: string[]): string | undefined {
  if (args.length === 0) return undefined
  if (args.length === 2 && args[0] === '--db' && args[1]) return args[1]
  const [first] = args
  if (first?.startsWith('--db=') && args.length === 1 && first.length > 5) return first.slice(5)
  throw new UsageError(`serve takes only --db PATH, got "${args.join(' ')}"`)
}

/** A key's quota reset, applied in Redis by the CLI at once (servers apply it too, within a second, once in all). */
async function resetInRedis(config: Config, key: ApiKey): Promise<boolean> {
  const limiter = new RedisRateLimiter({
    url: config.redisUrl!,
    prefix: config.redisKeyPrefix,
    failureMode: 'closed',
    fallback: new MemoryRateLimiter(),
    logger: createLogger('silent'),
  })
  try {
    if (!(await limiter.connect())) return false
    await limiter.reset(keySubject(key), quotaResetName(key), Date.now())
    return true
  } catch {
    return false
  } finally {
    limiter.close()
  }
}
