import { LOG_LEVELS, type LogLevel } from './log'

/**
 * How hard SQLite works to keep a commit: `full` (the default) syncs every
 * commit, so an acknowledged create survives an OS crash, a power loss or a
 * failing disk; `normal` survives a crash of the process, not of the OS or the disk.
 */
export const SYNCHRONOUS_MODES = ['normal', 'full'] as const
export type Synchronous = (typeof SYNCHRONOUS_MODES)[number]

/** What the shared limiter does while Redis cannot be asked: `open` counts per instance, `closed` answers 503. */
export const REDIS_FAILURE_MODES = ['open', 'closed'] as const
export type RedisFailureMode = (typeof REDIS_FAILURE_MODES)[number]

/** Which origins may call the API from a browser (CORS_ORIGINS): every one (`*`), or exactly these serialized origins. */
export type CorsOrigins = '*' | readonly string[]

/** The value each environment variable has when it is unset; the CLI usage quotes them. */
export const ENV_DEFAULTS = {
  PORT: 3000,
  HOST: '0.0.0.0',
  DATABASE_PATH: './data/animal-store.sqlite',
  TRUST_PROXY: 'off',
  LOG_LEVEL: 'info',
  SQLITE_SYNCHRONOUS: 'full',
  HTTP_IDLE_TIMEOUT: 10,
  DATABASE_POOL_SIZE: 10,
  REDIS_FAILURE_MODE: 'open',
  REDIS_KEY_PREFIX: 'animal-store:rl',
  IPV6_PREFIX: 64,
  ANON_SUBJECTS_MAX: 1_000_000,
  ADMIN_HOST: '127.0.0.1',
} as const satisfies Record<string, string | number>

/** Everything the service reads from its environment, validated. */
export interface Config {
  port: number
  host: string
  databasePath: string
  /** The public base URL without `/v1`, or undefined to derive it from each request. */
  publicUrl: string | undefined
  /** Whether the first `X-Forwarded-For` hop is the client address. */
  trustProxy: boolean
  logLevel: LogLevel
  synchronous: Synchronous
  /** Seconds a connection may sit idle (a stalled client) before Bun closes it. */
  idleTimeoutSeconds: number
  /** A PostgreSQL URL: pets and keys live there instead of the SQLite file. */
  databaseUrl: string | undefined
  /** Connections each instance keeps to PostgreSQL. */
  databasePoolSize: number
  /** A Redis URL: rate limits are counted there, shared by every instance. */
  redisUrl: string | undefined
  /** What the limiter does while Redis is unreachable. */
  redisFailureMode: RedisFailureMode
  /** The start of every limiter key in Redis, so deployments can share one Redis. */
  redisKeyPrefix: string
  /** Callers without a key on IPv6 are counted per network of this many leading bits. */
  ipv6Prefix: number
  /** How many callers without a key the in-memory limiter holds at most (least recently seen go first). */
  anonSubjectsMax: number
  /** Origins whose pages may call the API from a browser (`*`: every one); undefined sends no CORS headers. */
  corsOrigins: CorsOrigins | undefined
  /** The port of the admin listener (`/metrics`, `/health`); undefined: no admin listener, no metrics. */
  adminPort: number | undefined
  /** The address the admin listener binds. */
  adminHost: string
  /** The certificate chain and private key files (PEM) to serve HTTPS with; undefined: plain HTTP. */
  tls: { certFile: string; keyFile: string } | undefined
}

/** A bad environment variable; `variable` names it. `label` heads the one line the CLI prints before exiting 2. */
export class ConfigError extends Error {
  readonly label: string = 'Configuration error'
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
  }
}

/**
 * The storage a variable names cannot be served (read-only, full, damaged, a
 * newer build's, a stray log beside it): exit 2 like a bad setting, but the
 * setting is not the mistake, so the line says "Storage error".
 */
export class StorageSettingError extends ConfigError {
  override readonly label = 'Storage error'
  override name = 'StorageSettingError'
}

/** Reads and validates the configuration; pure, so tests pass any environment. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Readonly<Config> {
  if (env.DATABASE_URL && env.DATABASE_PATH)
    throw new ConfigError(
      'DATABASE_URL',
      'set it or DATABASE_PATH, not both: one names PostgreSQL, the other a SQLite file',
    )
  const port = integer('PORT', env.PORT, 0, 65535, ENV_DEFAULTS.PORT)
  return Object.freeze({
    port,
    host: nonEmpty('HOST', env.HOST, ENV_DEFAULTS.HOST),
    databasePath: nonEmpty('DATABASE_PATH', env.DATABASE_PATH, ENV_DEFAULTS.DATABASE_PATH),
    publicUrl: publicUrl(env.PUBLIC_URL),
    trustProxy: flag('TRUST_PROXY', env.TRUST_PROXY || ENV_DEFAULTS.TRUST_PROXY),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, ENV_DEFAULTS.LOG_LEVEL),
    synchronous: oneOf(
      'SQLITE_SYNCHRONOUS',
      env.SQLITE_SYNCHRONOUS?.toLowerCase(),
      SYNCHRONOUS_MODES,
      ENV_DEFAULTS.SQLITE_SYNCHRONOUS,
    ),
    idleTimeoutSeconds: integer('HTTP_IDLE_TIMEOUT', env.HTTP_IDLE_TIMEOUT, 1, 255, ENV_DEFAULTS.HTTP_IDLE_TIMEOUT),
    databaseUrl: serverUrl('DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:']),
    databasePoolSize: integer('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE, 1, 100, ENV_DEFAULTS.DATABASE_POOL_SIZE),
    redisUrl: serverUrl('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']),
    redisFailureMode: oneOf(
      'REDIS_FAILURE_MODE',
      env.REDIS_FAILURE_MODE?.toLowerCase(),
      REDIS_FAILURE_MODES,
      ENV_DEFAULTS.REDIS_FAILURE_MODE,
    ),
    redisKeyPrefix: nonEmpty('REDIS_KEY_PREFIX', env.REDIS_KEY_PREFIX, ENV_DEFAULTS.REDIS_KEY_PREFIX),
    ipv6Prefix: integer('IPV6_PREFIX', env.IPV6_PREFIX, 32, 128, ENV_DEFAULTS.IPV6_PREFIX),
    anonSubjectsMax: integer(
      'ANON_SUBJECTS_MAX',
      env.ANON_SUBJECTS_MAX,
      1_000,
      10_000_000,
      ENV_DEFAULTS.ANON_SUBJECTS_MAX,
    ),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    adminPort: adminPort(env.ADMIN_PORT, port),
    adminHost: nonEmpty('ADMIN_HOST', env.ADMIN_HOST, ENV_DEFAULTS.ADMIN_HOST),
    tls: tlsFiles(env.TLS_CERT_FILE, env.TLS_KEY_FILE),
  })
}

function adminPort(value: string | undefined, port: number): number | undefined {
  if (value === undefined || value === '') return undefined
  const admin = integer('ADMIN_PORT', value, 0, 65535, 0)
  if (admin !== 0 && admin === port)
    throw new ConfigError('ADMIN_PORT', `must differ from PORT (${admin}): the admin listener is a second one`)
  return admin
}

function tlsFiles(cert: string | undefined, key: string | undefined): Config['tls'] {
  const certFile = cert === '' ? undefined : cert
  const keyFile = key === '' ? undefined : key
  if (certFile === undefined && keyFile === undefined) return undefined
  if (keyFile === undefined) throw new ConfigError('TLS_KEY_FILE', 'must be set with TLS_CERT_FILE (both or neither)')
  if (certFile === undefined) throw new ConfigError('TLS_CERT_FILE', 'must be set with TLS_KEY_FILE (both or neither)')
  return { certFile, keyFile }
}

function serverUrl(variable: string, value: string | undefined, protocols: string[]): string | undefined {
  if (value === undefined || value === '') return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(variable, `must be a ${protocols[0]}// URL`)
  }
  if (!protocols.includes(url.protocol))
    throw new ConfigError(variable, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`)
  if (url.hostname === '') throw new ConfigError(variable, 'must name a host')
  return value
}

function integer(variable: string, value: string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const number = /^\d{1,9}$/.test(value) ? Number(value) : NaN
  if (!(number >= min && number <= max))
    throw new ConfigError(variable, `must be an integer from ${min} to ${max}, got "${value}"`)
  return number
}

function nonEmpty(variable: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback
  if (value.trim() === '') throw new ConfigError(variable, 'must not be empty')
  return value
}

function publicUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError('PUBLIC_URL', `must be an absolute http(s) URL, got "${value}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError('PUBLIC_URL', 'must use http or https')
  if (url.search || url.hash) throw new ConfigError('PUBLIC_URL', 'must not have a query or fragment')
  // The base is the origin plus any proxy prefix; a trailing "/v1" is the API's own and is dropped.
  return (url.origin + url.pathname).replace(/\/+$/, '').replace(/\/v1$/, '')
}

function flag(variable: string, value: string): boolean {
  const normal = value.toLowerCase()
  if (['1', 'true', 'on', 'yes'].includes(normal)) return true
  if (['0', 'false', 'off', 'no'].includes(normal)) return false
  throw new ConfigError(variable, `must be on or off (true/false, 1/0, yes/no), got "${value}"`)
}

function oneOf<T extends string>(variable: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw new ConfigError(variable, `must be one of ${allowed.join(', ')}, got "${value}"`)
}

/**
 * Reads CORS_ORIGINS: `*`, or origins separated by commas, each a scheme,
 * host and optional port (`https://shop.example`, `http://localhost:5173`),
 * as a browser sends it in `Origin`.
 */
function corsOrigins(value: string | undefined): CorsOrigins | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
  if (parts.length === 0) throw new ConfigError('CORS_ORIGINS', 'must be * or a comma-separated list of origins')
  if (parts.includes('*')) {
    if (parts.length === 1) return '*'
    throw new ConfigError('CORS_ORIGINS', '* allows every origin: give it alone or list origins')
  }
  return parts.map((part) => {
    let url: URL
    try {
      url = new URL(part)
    } catch {
      throw new ConfigError('CORS_ORIGINS', `"${part}" is not an origin such as https://shop.example`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError('CORS_ORIGINS', `"${part}" must start with http:// or https://`)
    // An origin has no path, query, fragment or user: a browser never sends one in `Origin`.
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password)
      throw new ConfigError('CORS_ORIGINS', `"${part}" must be an origin only (scheme, host, port), without a path`)
    return url.origin
  })
}
