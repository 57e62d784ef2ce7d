import { generateApiKey, hashApiKey } from '../keys/api_key'
import { issueKey } from '../keys/issue'
import { isPlan, type Limits, limitsFor, PLANS, type Plan } from '../keys/plans'
import { ACCESS_LEVELS, type Access, type ApiKey, KEY_CHANGE_SEEN_WITHIN_MS, type KeyStore } from '../keys/store'
import { EXIT_FAILED, type Io, parseCommandLine, UsageError } from './command_line'
import { parseDuration, parseExpiry } from './time_text'

/** The key store a command works on, and how to release it (the service's Stores are one). */
export interface OpenedKeys {
  keys: KeyStore
  close(): Promise<void>
}

/** What the keys commands work with besides their arguments. */
export interface KeysCommandContext {
  /** Called only once the arguments are known to be good, with the `--db` path when one was given. */
  openStores(dbPath: string | undefined): Promise<OpenedKeys>
  /**
   * With a shared limiter (REDIS_URL): applies a key's quota reset there at
   * once; false when it cannot be reached (the servers then apply it).
   */
  resetSharedQuota?(key: ApiKey): Promise<boolean>
  /** Milliseconds since the epoch, for durations; `Date.now` when absent. */
  clock?: () => number
  io: Io
}

/** How long an old key keeps working after `roll` when no `--grace` is given. */
export const DEFAULT_GRACE = '24h'

const OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  name: { type: 'string' },
  plan: { type: 'string' },
  rpm: { type: 'string' },
  rpd: { type: 'string' },
  expires: { type: 'string' },
  'read-only': { type: 'boolean' },
  grace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const
type Option = keyof typeof OPTIONS

/** Each command, and the options it takes besides --db and --json. */
const COMMANDS: Record<string, readonly Option[]> = {
  create: ['plan', 'name', 'rpm', 'rpd', 'expires', 'read-only'],
  list: [],
  show: [],
  revoke: [],
  'set-plan': ['plan', 'rpm', 'rpd'],
  'set-expiry': [],
  'set-access': [],
  roll: ['grace', 'expires'],
  unban: [],
}

/** The `keys` lines of the usage, one per command. */
export const KEYS_USAGE = `  animal-store keys create --plan ${PLANS.join('|')} [--name TEXT] [--rpm N --rpd N]
                          [--expires WHEN] [--read-only] [--json] [--db PATH]
  animal-store keys list [--json] [--db PATH]
  animal-store keys show ID [--json] [--db PATH]
  animal-store keys revoke ID [--json] [--db PATH]
  animal-store keys set-plan ID --plan PLAN [--rpm N --rpd N] [--json] [--db PATH]
  animal-store keys set-expiry ID WHEN|never [--json] [--db PATH]
  animal-store keys set-access ID ${ACCESS_LEVELS.join('|')} [--json] [--db PATH]
  animal-store keys roll ID [--grace DURATION] [--expires WHEN] [--json] [--db PATH]
  animal-store keys unban ID [--json] [--db PATH]`

/** What WHEN and DURATION are, for the usage. */
export const KEYS_USAGE_NOTES = `WHEN: a duration from now (90d, 12h, 30m), a UTC date (2027-01-31, its start) or a timestamp with its zone
(2027-01-31T12:00:00Z). roll makes a new key with the same name, plan, limits and access, counted on the same
quota, and ends the old one after --grace (${DEFAULT_GRACE}; 0 ends it now). unban lifts a ban and clears the key's counts
for this minute and today. A running server applies every change within a second.`

type Values = ReturnType<typeof parse>['values']

/**
 * `keys <command>`; `--help` prints the usage. What `openStores` opened is
 * closed before the command returns.
 */
export async function runKeysCommand(args: string[], context: KeysCommandContext): Promise<number | 'help'> {
  const [command, ...rest] = args
  if (command === undefined) throw new UsageError('keys needs a command')
  if (command === '--help' || command === '-h' || command === 'help') return 'help'
  const { values, positionals } = parse(rest)
  if (values.help) return 'help'
  const takes = COMMANDS[command]
  if (takes === undefined) throw new UsageError(`Unknown keys command "${command}"`)
  for (const option of Object.keys(values) as Option[])
    if (option !== 'db' && option !== 'json' && !takes.includes(option))
      throw new UsageError(`keys ${command} does not take --${option}`)
  let stores: OpenedKeys | undefined
  const store = async () => {
    stores ??= await context.openStores(values.db)
    return stores.keys
  }
  try {
    return await run(command, values, positionals, store, context)
  } finally {
    await stores?.close()
  }
}

async function run(
  command: string,
  values: Values,
  positionals: string[],
  store: () => Promise<KeyStore>,
  context: KeysCommandContext,
): Promise<number> {
  const { io } = context
  const now = (context.clock ?? Date.now)()
  const print = (key: ApiKey) => {
    if (values.json) io.out(JSON.stringify(key))
  }
  switch (command) {
    case 'create': {
      expectPositionals(positionals, 0)
      const plan = planOption(values.plan)
      const limits = limitsOption(plan, values)
      const name = values.name ?? 'default'
      if (name.trim() === '' || name.length > 255) throw new UsageError('--name must be 1 to 255 characters')
      const expiresAt = values.expires === undefined ? null : expiryArgument('--expires', values.expires, now)
      const access: Access = values['read-only'] ? 'read-only' : 'read-write'
      const { key, secret } = await issueKey(await store(), { name, plan, ...limits, access, expiresAt })
      io.out(values.json ? JSON.stringify(issued(key, secret)) : secret)
      io.err(`Created key ${key.id} "${key.name}": ${describeKey(key)}. It is shown only this once.`)
      return 0
    }
    case 'list': {
      expectPositionals(positionals, 0)
      const keys = await (await store()).list()
      if (values.json) io.out(JSON.stringify(keys))
      else for (const line of table(keys)) io.out(line)
      return 0
    }
    case 'show': {
      const key = await existingKey(await store(), idArgument(positionals))
      if (values.json) io.out(JSON.stringify(key))
      else for (const line of record(key)) io.out(line)
      return 0
    }
    case 'revoke': {
      const key = await (await store()).revoke(idArgument(positionals))
      if (!key) throw unknownKey(positionals)
      print(key)
      io.err(`Key ${key.id} "${key.name}" is revoked (since ${key.revokedAt}); ${appliedSoon}.`)
      return 0
    }
    case 'set-plan': {
      const id = idArgument(positionals)
      const plan = planOption(values.plan)
      const limits = limitsOption(plan, values)
      return changed(
        await store(),
        id,
        (keys) => keys.setPlan(id, plan, limits),
        (key) => {
          print(key)
          io.err(`Key ${key.id} "${key.name}" is now on the ${key.plan} plan (${describeLimits(key)}); ${appliedSoon}.`)
        },
        io,
      )
    }
    case 'set-expiry': {
      const [id, when] = idAndValue(positionals, 'WHEN (a duration, a date, a timestamp or "never")')
      const expiresAt = when === 'never' ? null : expiryArgument('WHEN', when, now)
      return changed(
        await store(),
        id,
        (keys) => keys.setExpiry(id, expiresAt),
        (key) => {
          print(key)
          io.err(
            `Key ${key.id} "${key.name}" ${key.expiresAt ? `expires at ${key.expiresAt}` : 'never expires'}; ${appliedSoon}.`,
          )
        },
        io,
      )
    }
    case 'set-access': {
      const [id, access] = idAndValue(positionals, ACCESS_LEVELS.join(' or '))
      if (!(ACCESS_LEVELS as readonly string[]).includes(access))
        throw new UsageError(`Access must be ${ACCESS_LEVELS.join(' or ')}, got "${access}"`)
      return changed(
        await store(),
        id,
        (keys) => keys.setAccess(id, access as Access),
        (key) => {
          print(key)
          io.err(`Key ${key.id} "${key.name}" is now ${key.access}; ${appliedSoon}.`)
        },
        io,
      )
    }
    case 'roll': {
      const id = idArgument(positionals)
      const grace = durationArgument('--grace', values.grace ?? DEFAULT_GRACE)
      const expiresAt = values.expires === undefined ? null : expiryArgument('--expires', values.expires, now)
      const keys = await store()
      const secret = generateApiKey()
      const rolled = await keys.roll(id, hashApiKey(secret), new Date(now + grace).toISOString(), expiresAt)
      if (!rolled) return refusedChange(keys, id, 'it cannot be rolled; make a new key with keys create', io)
      const { old, successor } = rolled
      io.out(values.json ? JSON.stringify({ ...issued(successor, secret), replaces: old }) : secret)
      io.err(
        `Created key ${successor.id} "${successor.name}" to replace key ${old.id}: ${describeKey(successor)}, ` +
          `on the same quota. It is shown only this once. Key ${old.id} works until ${old.expiresAt}.`,
      )
      return 0
    }
    case 'unban': {
      const id = idArgument(positionals)
      return changed(
        await store(),
        id,
        (keys) => keys.resetQuota(id),
        async (key) => {
          print(key)
          const shared = context.resetSharedQuota === undefined ? undefined : await context.resetSharedQuota(key)
          io.err(
            `Key ${key.id} "${key.name}": ban lifted and this minute's and today's counts cleared` +
              (key.quotaId !== key.id ? ` (the quota it shares with key ${key.quotaId})` : '') +
              (shared === true
                ? ' in Redis now'
                : shared === false
                  ? `; Redis does not answer, so each server applies it within ${KEY_CHANGE_SEEN_WITHIN_MS / 1000} s`
                  : `; ${appliedSoon}`) +
              '.',
          )
        },
        io,
      )
    }
    default:
      throw new UsageError(`Unknown keys command "${command}"`)
  }
}

const appliedSoon = `a running server applies it within ${KEY_CHANGE_SEEN_WITHIN_MS / 1000} s`

function parse(args: string[]) {
  return parseCommandLine(args, OPTIONS)
}

/** Applies a change to an unrevoked key, or says why it could not (exit 2 for an unknown id, 1 for a revoked key). */
async function changed(
  keys: KeyStore,
  id: number,
  change: (keys: KeyStore) => Promise<ApiKey | undefined> | ApiKey | undefined,
  report: (key: ApiKey) => void | Promise<void>,
  io: Io,
): Promise<number> {
  const key = await change(keys)
  if (!key) return refusedChange(keys, id, 'it cannot change', io)
  await report(key)
  return 0
}

/** Why a change to key `id` did nothing: no such key (a usage error), or one that is revoked or expired (exit 1). */
async function refusedChange(keys: KeyStore, id: number, consequence: string, io: Io): Promise<number> {
  const key = await keys.get(id)
  if (key === undefined) throw unknownKey([String(id)])
  const state = key.revokedAt !== null ? `revoked (since ${key.revokedAt})` : `expired (at ${key.expiresAt})`
  io.err(`Key ${id} is ${state}; ${consequence}`)
  return EXIT_FAILED
}

async function existingKey(keys: KeyStore, id: number): Promise<ApiKey> {
  const key = await keys.get(id)
  if (key === undefined) throw unknownKey([String(id)])
  return key
}

function unknownKey(positionals: string[]): UsageError {
  return new UsageError(`No key with id ${positionals[0]}; keys list shows them`)
}

/** A new key as `create` and `roll` print it with --json: the record and, this once, the secret. */
function issued(key: ApiKey, secret: string) {
  return {
    id: key.id,
    key: secret,
    name: key.name,
    plan: key.plan,
    rpm: key.rpm,
    rpd: key.rpd,
    access: key.access,
    expiresAt: key.expiresAt,
  }
}

function expectPositionals(positionals: string[], count: number): void {
  if (positionals.length !== count) throw new UsageError(`Unexpected argument "${positionals[count]}"`)
}

function idArgument(positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError('Give exactly one key ID')
  return positiveInteger('ID', positionals[0]!)
}

function idAndValue(positionals: string[], what: string): [number, string] {
  if (positionals.length !== 2) throw new UsageError(`Give a key ID and ${what}`)
  return [positiveInteger('ID', positionals[0]!), positionals[1]!]
}

function planOption(value: string | undefined): Plan {
  if (value === undefined) throw new UsageError(`--plan is required: one of ${PLANS.join(', ')}`)
  if (!isPlan(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}, got "${value}"`)
  return value
}

function limitsOption(plan: Plan, values: { rpm?: string; rpd?: string }): Limits {
  const custom = {
    rpm: values.rpm === undefined ? undefined : positiveInteger('--rpm', values.rpm),
    rpd: values.rpd === undefined ? undefined : positiveInteger('--rpd', values.rpd),
  }
  return asUsage(() => limitsFor(plan, custom))
}

function expiryArgument(what: string, text: string, now: number): string {
  return new Date(asUsage(() => parseExpiry(text, now), what)).toISOString()
}

function durationArgument(what: string, text: string): number {
  return asUsage(() => parseDuration(text), what)
}

/** The value `parse` gives, or its RangeError as a usage error (prefixed with the option it came from). */
function asUsage<T>(parse: () => T, what?: string): T {
  try {
    return parse()
  } catch (error) {
    const message = (error as Error).message
    throw new UsageError(what === undefined ? message : `${what}: ${message}`)
  }
}

function positiveInteger(what: string, value: string): number {
  const number = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(number)) throw new UsageError(`${what} must be a positive integer, got "${value}"`)
  return number
}

function describeLimits({ rpm, rpd }: Limits): string {
  return `${rpm}/min, ${rpd}/day`
}

function describeKey(key: ApiKey): string {
  const expiry = key.expiresAt === null ? 'never expires' : `expires at ${key.expiresAt}`
  return `${key.plan} plan (${describeLimits(key)}), ${key.access}, ${expiry}`
}

/** An ISO time to the minute, as the table shows it ("2026-11-23T14:05Z"); "-" for none. */
function minute(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 16)}Z`
}

function table(keys: ApiKey[]): string[] {
  const rows = [
    ['ID', 'NAME', 'PLAN', 'RPM', 'RPD', 'ACCESS', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED'],
    ...keys.map((k) => [
      String(k.id),
      k.name,
      k.plan,
      String(k.rpm),
      String(k.rpd),
      k.access,
      minute(k.createdAt),
      minute(k.expiresAt),
      minute(k.revokedAt),
      minute(k.lastUsedAt),
    ]),
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  )
}

/** One key as `show` prints it: a field per line, times in full. */
function record(key: ApiKey): string[] {
  const fields: [string, string | number | null][] = [
    ['id', key.id],
    ['name', key.name],
    ['plan', key.plan],
    ['limits', describeLimits(key)],
    ['access', key.access],
    ['created', key.createdAt],
    ['expires', key.expiresAt ?? 'never'],
    ['revoked', key.revokedAt],
    ['last used', key.lastUsedAt === null ? 'never' : `${minute(key.lastUsedAt)} (to the minute)`],
    ['rolled from', key.rolledFrom],
    ['quota of key', key.quotaId],
    ['quota reset', key.quotaResetAt],
  ]
  return fields.map(([field, value]) => `${`${field}:`.padEnd(14)}${value ?? '-'}`)
}
