import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from './config'
import { backupDatabase } from './db/backup'
import { openDatabase } from './db/open'
import { type Io, runKeysCommand, UsageError } from './keys/cli'
import { type RunningService, startService } from './server'
import { openStores } from './stores'

/** Exit status for bad arguments or a bad environment variable. */
export const EXIT_USAGE = 2

/** What `--help` and every usage error print. */
export const USAGE = `Usage:
  animal-store serve [--db PATH]
  animal-store keys create --plan free|pro|business|enterprise [--name TEXT] [--rpm N --rpd N] [--json] [--db PATH]
  animal-store keys list [--json] [--db PATH]
  animal-store keys revoke ID [--json] [--db PATH]
  animal-store keys set-plan ID --plan PLAN [--rpm N --rpd N] [--json] [--db PATH]
  animal-store backup FILE [--db PATH]      a consistent copy of the database, safe while serving

--rpm and --rpd (requests per minute and per day) are required with the enterprise plan and refused with the others.
Environment: PORT (3000), HOST (0.0.0.0), DATABASE_PATH (./data/animal-store.sqlite), PUBLIC_URL,
TRUST_PROXY (off), LOG_LEVEL (info), SQLITE_SYNCHRONOUS (normal|full), HTTP_IDLE_TIMEOUT (10).
Several instances: DATABASE_URL (postgres://…, instead of DATABASE_PATH), DATABASE_POOL_SIZE (10), REDIS_URL (redis://…),
REDIS_FAILURE_MODE (open|closed: while Redis is unreachable, limit per instance or answer 503),
REDIS_KEY_PREFIX (animal-store:rl).`

/** The process's standard streams as an `Io`. */
const processIo: Io = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
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
        return await startService(loadConfig(env), io, serveDbOption(rest))
      case 'keys': {
        const config = loadConfig(env)
        return await runKeysCommand(rest, (sqlitePath) => openStores({ config, sqlitePath, serving: false }), io)
      }
      case 'backup': {
        const { file, db } = backupOptions(rest)
        const config = loadConfig(env)
        if (config.databaseUrl !== undefined)
          throw new ConfigError('DATABASE_URL', 'backup copies the SQLite file; for PostgreSQL use pg_dump')
        const source = db ?? config.databasePath
        try {
          backupDatabase(openDatabase(source, config.synchronous), file)
        } catch (error) {
          io.err(`Backup failed: ${(error as Error).message}`)
          return 1
        }
        io.err(`Backed up ${source} to ${file}`)
        return 0
      }
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return 0
      default:
        throw new UsageError(command === undefined ? 'Missing command' : `Unknown command "${command}"`)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}`)
      return EXIT_USAGE
    }
    if (error instanceof ConfigError) {
      io.err(`Configuration error: ${error.message}`)
      return EXIT_USAGE
    }
    throw error
  }
}

function backupOptions(args: string[]): { file: string; db?: string } {
  let parsed
  try {
    parsed = parseArgs({ args, options: { db: { type: 'string' } }, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const [file, ...extra] = parsed.positionals
  if (file === undefined || extra.length > 0) throw new UsageError('backup takes one FILE and optionally --db PATH')
  return { file, db: parsed.values.db }
}

/** The `--db PATH` of `serve`, if given. */
function serveDbOption(args: string[]): string | undefined {
  if (args.length === 0) return undefined
  if (args.length === 2 && args[0] === '--db' && args[1]) return args[1]
  const [first] = args
  if (first?.startsWith('--db=') && args.length === 1 && first.length > 5) return first.slice(5)
  throw new UsageError(`serve takes only --db PATH, got "${args.join(' ')}"`)
}
