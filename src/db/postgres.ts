import { SQL } from 'bun'
import { type Migration, refuseNewerSchema } from './migration'
import { postgresMigrations } from './postgres_migrations'
import { StoreUnavailableError } from './store_unavailable'

/** How long one statement may run before PostgreSQL cancels it. */
export const STATEMENT_TIMEOUT_MS = 5000

/** How a PostgreSQL pool is opened; tests add their own schema. */
export interface PostgresOptions {
  /** Connections per process (Bun's default is 10). */
  max?: number
  /** A schema to create (if missing) and put first on the search path. */
  schema?: string
}

/**
 * Opens a pool on `url` (Bun's built-in client), migrated to the current
 * schema. Statements are parameterised tagged templates throughout.
 */
export async function openPostgres(url: string, { max = 10, schema }: PostgresOptions = {}): Promise<SQL> {
  if (schema !== undefined) {
    const setup = new SQL(url, { max: 1 })
    try {
      await setup`CREATE SCHEMA IF NOT EXISTS ${setup(schema)}`
    } catch (error) {
      // Two pools creating the same schema at once: the loser's IF NOT EXISTS raced; the schema is there.
      if ((error as { errno?: string }).errno !== '23505') throw error
    } finally {
      await setup.close()
    }
  }
  const connection: Record<string, string | number> = {
    application_name: 'animal-store',
    statement_timeout: STATEMENT_TIMEOUT_MS,
  }
  if (schema !== undefined) connection.search_path = schema
  const sql = new SQL(url, { max, connection, connectionTimeout: 5 })
  try {
    await migratePostgres(sql, postgresMigrations)
  } catch (error) {
    await sql.close()
    throw error
  }
  return sql
}

// Any constant: the migration steps of every process on this database take turns under it.
const MIGRATION_LOCK = 4_104_2026

/**
 * The SQLite runner's counterpart: applies the migrations not yet recorded
 * in `schema_migrations`, each in its own transaction with its record, under
 * an advisory lock, so instances starting together apply each step once; a
 * recorded version above the last migration is refused (NewerSchemaError).
 * Returns the versions it applied.
 */
export async function migratePostgres(sql: SQL, migrations: readonly Migration[]): Promise<number[]> {
  const applied: number[] = []
  // A database without the table has no schema yet.
  const [table] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`
  if (table?.present) {
    const [newest] = await sql`SELECT coalesce(max(version), 0) AS version FROM schema_migrations`
    refuseNewerSchema(Number(newest?.version), migrations)
  }
  for (const migration of migrations) {
    const done = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
      const [seen] = await tx`SELECT 1 FROM schema_migrations WHERE version = ${migration.version}`
      if (seen) return false
      await tx.unsafe(migration.sql)
      await tx`INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`
      return true
    })
    if (done) applied.push(migration.version)
  }
  return applied
}

/** A PostgreSQL URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'postgres://(unparsable URL)'
  }
}

// Connection failures and timeouts, as Bun reports them, and PostgreSQL's "query canceled"
// (statement_timeout), "shutting down" and "too many connections".
const UNAVAILABLE_ERRNOS = new Set(['57014', '57P01', '57P02', '57P03', '53300'])

/** Whether an error means the database is out of reach for now, not that the statement was wrong. */
export function databaseUnavailable(error: unknown): boolean {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown }
  if (typeof code === 'string' && (code.startsWith('ERR_POSTGRES_CONNECTION') || code.includes('TIMEOUT'))) return true
  return typeof errno === 'string' && UNAVAILABLE_ERRNOS.has(errno)
}

/**
 * How long a request's database work may take, a connection from the pool
 * included, before it is answered 503 (`unavailable`, retry): one second
 * beyond the server's own `statement_timeout`, which a PostgreSQL that hangs
 * (frozen, or its host stalled) cannot enforce while it hangs. A statement
 * it was running is cancelled once it runs again (its timeout has passed);
 * one that had not reached it yet runs then, inside a transaction that
 * rolls back (beforeDeadline), so a write answered 503 does not land after
 * all; only a create without an Idempotency-Key, one statement committed as
 * it runs, may (docs/operations.md, "When things go wrong").
 */
export const CLIENT_DEADLINE_MS = STATEMENT_TIMEOUT_MS + 1000

/** How long `/health` waits for PostgreSQL's answer to a trivial query: a probe must answer promptly. */
export const HEALTH_DEADLINE_MS = 1000

/** What a request's database work may ask of its deadline. */
export interface Deadline {
  /** Throws StoreUnavailableError once the deadline has passed (the request was answered 503 already). */
  check(): void
}

/**
 * Runs a request's database work; a database out of reach becomes a
 * StoreUnavailableError (retry), not a bug, and so does a database that
 * does not answer within `deadlineMs`. The work goes on after that (a
 * promise cannot be stopped): its writes run in `beforeDeadline`
 * transactions, which roll back instead of committing once it has passed.
 */
export async function orUnavailable<T>(
  work: (deadline: Deadline) => Promise<T>,
  deadlineMs = CLIENT_DEADLINE_MS,
): Promise<T> {
  let passed = false
  const expired = () => new StoreUnavailableError(`PostgreSQL did not answer within ${deadlineMs} ms`)
  let timer: Timer | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      passed = true
      reject(expired())
    }, deadlineMs)
  })
  const deadline: Deadline = {
    check() {
      if (passed) throw expired()
    },
  }
  try {
    return await Promise.race([work(deadline), timeout])
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error
    if (databaseUnavailable(error)) throw new StoreUnavailableError('PostgreSQL does not answer', { cause: error })
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/**
 * A write transaction that commits only while its request's deadline has
 * not passed: once the request has been answered 503, a PostgreSQL that
 * thaws runs the statements it had queued, and the transaction then rolls
 * back, so a write answered 503 never lands later (only a COMMIT already on
 * its way when the server froze can).
 */
export function beforeDeadline<T>(sql: SQL, deadline: Deadline, work: (tx: SQL) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    const result = await work(tx)
    deadline.check()
    return result
  })
}
