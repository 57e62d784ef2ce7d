import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RedisClient, SQL } from 'bun'
import type { RedisFailureMode } from '../src/config'
import { openPostgres } from '../src/db/postgres'
import { PostgresKeyStore } from '../src/keys/postgres_store'
import { createLogger } from '../src/log'
import { PostgresOrderStore } from '../src/orders/postgres_store'
import { PostgresPetStore } from '../src/pets/postgres_store'
import { MemoryRateLimiter } from '../src/ratelimit/memory_limiter'
import { RedisRateLimiter } from '../src/ratelimit/redis_limiter'

/**
 * The PostgreSQL and Redis servers the shared-store suites run against.
 * `.ci/run` starts throwaway ones (`.ci/services start DIR`) and sets these;
 * without them those suites are reported as skipped, never as passed.
 * They are not DATABASE_URL and REDIS_URL, so that servers the tests start
 * use SQLite unless a test says otherwise.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined
/** Whether the shared-store suites run. */
export const SHARED_STORES = TEST_DATABASE_URL !== undefined && TEST_REDIS_URL !== undefined

if (!SHARED_STORES) {
  if (process.env.REQUIRE_SHARED_STORES)
    throw new Error('REQUIRE_SHARED_STORES is set but TEST_DATABASE_URL or TEST_REDIS_URL is not')
  console.warn(
    '\n*** SKIPPING the PostgreSQL + Redis suites: TEST_DATABASE_URL and TEST_REDIS_URL are not set.\n' +
      '*** Start throwaway servers with `bash .ci/services start /tmp/animal-store-services` and export what it prints,\n' +
      '*** as TEST_DATABASE_URL and TEST_REDIS_URL (bash .ci/run does all of this).\n',
  )
}

/** A name no other test uses: a PostgreSQL schema, a Redis key prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`
}

let admin: SQL | undefined
let redisAdmin: RedisClient | undefined

/** Drops a test's schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  admin ??= new SQL(TEST_DATABASE_URL!, { max: 1 })
  await admin`DROP SCHEMA IF EXISTS ${admin(schema)} CASCADE`
}

/** Deletes every Redis key under a test's prefix. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  redisAdmin ??= new RedisClient(TEST_REDIS_URL!)
  let cursor = '0'
  do {
    const [next, keys] = (await redisAdmin.send('SCAN', [cursor, 'MATCH', `${prefix}:*`, 'COUNT', '1000'])) as [
      string,
      string[],
    ]
    if (keys.length > 0) await redisAdmin.send('UNLINK', keys)
    cursor = next
  } while (cursor !== '0')
}

/** `count` pools on one fresh schema, as that many instances would hold; closed and dropped by `cleanups`. */
export async function postgresPools(count: number, cleanups: (() => unknown)[]): Promise<SQL[]> {
  const schema = uniqueName('test')
  cleanups.push(() => dropSchema(schema))
  const pools = []
  for (let i = 0; i < count; i++) {
    const sql = await openPostgres(TEST_DATABASE_URL!, { schema, max: 3 })
    cleanups.push(() => sql.close())
    pools.push(sql)
  }
  return pools
}

/** PostgreSQL stores in a fresh schema of their own; `cleanup` drops it. */
export async function postgresTestStores() {
  const schema = uniqueName('test')
  const sql = await openPostgres(TEST_DATABASE_URL!, { schema, max: 4 })
  const keys = await PostgresKeyStore.open(sql)
  return {
    sql,
    schema,
    keys,
    pets: new PostgresPetStore(sql),
    orders: new PostgresOrderStore(sql),
    async cleanup() {
      keys.close()
      await sql.close()
      await dropSchema(schema)
    },
  }
}

/** A Redis limiter under a fresh key prefix; `cleanup` (also pushed to `cleanups`) closes it and deletes its keys. */
export async function redisTestLimiter(
  options: {
    url?: string
    failureMode?: RedisFailureMode
    timeoutMs?: number
    anonymousMax?: number
    /** Another limiter's prefix: a second instance on the same counters. */
    prefix?: string
  } = {},
  cleanups?: (() => unknown)[],
) {
  const prefix = options.prefix ?? uniqueName('test')
  const logs: Record<string, unknown>[] = []
  const limiter = new RedisRateLimiter({
    url: options.url ?? TEST_REDIS_URL!,
    failureMode: options.failureMode ?? 'open',
    fallback: new MemoryRateLimiter(),
    logger: createLogger('info', (line) => logs.push(JSON.parse(line))),
    prefix,
    timeoutMs: options.timeoutMs,
    anonymousMax: options.anonymousMax,
  })
  await limiter.connect()
  const cleanup = async () => {
    limiter.close()
    if (options.url === undefined) await deleteRedisKeys(prefix)
  }
  cleanups?.push(cleanup)
  return { limiter, prefix, logs, cleanup }
}

/** A Redis server of a test's own, on a free loopback port, that the test can stop and start again. */
export async function startPrivateRedis() {
  const port = freePort()
  const url = `redis://127.0.0.1:${port}`
  let proc: ReturnType<typeof Bun.spawn> | undefined
  const start = async () => {
    proc = Bun.spawn(
      ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdout: 'ignore',
        stderr: 'ignore',
      },
    )
    const client = new RedisClient(url, { autoReconnect: false, connectionTimeout: 200 })
    for (let attempt = 0; ; attempt++) {
      try {
        await client.connect()
        await client.send('PING', [])
        client.close()
        return
      } catch {
        if (attempt > 100) throw new Error(`redis-server on port ${port} did not start`)
        await Bun.sleep(50)
      }
    }
  }
  const stop = async () => {
    proc?.kill('SIGKILL')
    await proc?.exited
  }
  await start()
  return { url, start, stop, pause: () => proc?.kill('SIGSTOP'), resume: () => proc?.kill('SIGCONT') }
}

function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

const SERVICES_SCRIPT = join(import.meta.dir, '..', '.ci', 'services')

/**
 * A PostgreSQL cluster of a test's own (started by `.ci/services` with a Redis
 * beside it, in a fresh folder), whose server the test can stop and start again.
 */
export async function startPrivatePostgres() {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-pg-'))
  const started = Bun.spawnSync(['bash', SERVICES_SCRIPT, 'start', dir], {
    env: { ...process.env, PG_PORT: '47432', REDIS_PORT: '47379' },
  })
  if (started.exitCode !== 0) throw new Error(`.ci/services start failed:\n${started.stderr.toString()}`)
  const url = /^export DATABASE_URL=(\S+)$/m.exec(started.stdout.toString())![1]!
  const port = new URL(url).port
  const bin = Bun.spawnSync(['bash', '-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1'])
    .stdout.toString()
    .trim()
  // As .ci/services runs it: PostgreSQL refuses to run as root.
  const asPostgres = (command: string[]) =>
    process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...command] : command
  const pgCtl = (...args: string[]) => {
    const result = Bun.spawnSync(asPostgres([`${bin}/pg_ctl`, '-D', join(dir, 'pg'), '-w', ...args]))
    if (result.exitCode !== 0) throw new Error(`pg_ctl ${args[0]} failed:\n${result.stderr.toString()}`)
  }
  /** Every process of the cluster: the postmaster and its children (each connection is one). */
  const processes = () => {
    const postmaster = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0])
    return [postmaster, ...childrenOf(postmaster)]
  }
  const signal = (name: 'SIGSTOP' | 'SIGCONT') => {
    for (const pid of processes()) process.kill(pid, name)
  }
  return {
    url,
    /** Freezes the whole server (every backend too), as a stalled host would: connections stay open, nothing answers. */
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    stop: () => pgCtl('stop', '-m', 'fast'),
    start: () =>
      pgCtl('start', '-l', join(dir, 'pg', 'server.log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`),
    async cleanup() {
      Bun.spawnSync(['bash', SERVICES_SCRIPT, 'stop', dir])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The PIDs of a process's children and theirs, read from /proc (no procps needed on a fresh machine). */
export function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`
  if (!existsSync(file)) return []
  const children = readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  return children.flatMap((child) => [child, ...childrenOf(child)])
}
