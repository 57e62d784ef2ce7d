import { EXIT_FAILED, type Io, parseCommandLine, UsageError } from '../command_line'
import { issueKey } from './issue'
import { isPlan, type Limits, limitsFor, PLANS, type Plan } from './plans'
import type { ApiKey, KeyStore } from './store'

/** The key store a command works on, and how to release it (the service's Stores are one). */
export interface OpenedKeys {
  keys: KeyStore
  close(): Promise<void>
}

const OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  name: { type: 'string' },
  plan: { type: 'string' },
  rpm: { type: 'string' },
  rpd: { type: 'string' },
} as const

/**
 * `keys create|list|revoke|set-plan`. `openStores` is called only once the
 * arguments are known to be good, with the `--db` path when one was given,
 * and what it opened is closed before the command returns.
 */
export async function runKeysCommand(
  args: string[],
  openStores: (dbPath: string | undefined) => Promise<OpenedKeys>,
  io: Io,
): Promise<number> {
  const [command, ...rest] = args
  const { values, positionals } = parse(rest)
  let stores: OpenedKeys | undefined
  const store = async () => {
    stores ??= await openStores(values.db)
    return stores.keys
  }
  try {
    return await run(command, values, positionals, store, io)
  } finally {
    await stores?.close()
  }
}

async function run(
  command: string | undefined,
  values: ReturnType<typeof parse>['values'],
  positionals: string[],
  store: () => Promise<KeyStore>,
  io: Io,
): Promise<number> {
  switch (command) {
    case 'create': {
      expectPositionals(positionals, 0)
      const plan = planOption(values.plan)
      const limits = limitsOption(plan, values)
      const name = values.name ?? 'default'
      if (name.trim() === '' || name.length > 255) throw new UsageError('--name must be 1 to 255 characters')
      const { key, secret } = await issueKey(await store(), { name, plan, ...limits })
      io.out(
        values.json
          ? JSON.stringify({ id: key.id, key: secret, name: key.name, plan: key.plan, rpm: key.rpm, rpd: key.rpd })
          : secret,
      )
      io.err(
        `Created key ${key.id} "${key.name}" on the ${key.plan} plan (${describeLimits(key)}). It is shown only this once.`,
      )
      return 0
    }
    case 'list': {
      expectPositionals(positionals, 0)
      const keys = await (await store()).list()
      if (values.json) io.out(JSON.stringify(keys))
      else for (const line of table(keys)) io.out(line)
      return 0
    }
    case 'revoke': {
      const id = idArgument(positionals)
      const keys = await store()
      const key = await keys.revoke(id)
      if (!key) return failed(io, `No key with id ${id}`)
      if (values.json) io.out(JSON.stringify(key))
      io.err(
        `Key ${key.id} "${key.name}" is revoked (since ${key.revokedAt}); a running server refuses it within a second.`,
      )
      return 0
    }
    case 'set-plan': {
      const id = idArgument(positionals)
      const plan = planOption(values.plan)
      const limits = limitsOption(plan, values)
      const keys = await store()
      const key = await keys.setPlan(id, plan, limits)
      if (!key)
        return failed(
          io,
          (await keys.get(id)) ? `Key ${id} is revoked; its plan cannot change` : `No key with id ${id}`,
        )
      if (values.json) io.out(JSON.stringify(key))
      io.err(`Key ${key.id} "${key.name}" is now on the ${key.plan} plan (${describeLimits(key)}).`)
      return 0
    }
    default:
      throw new UsageError(command === undefined ? 'keys needs a command' : `Unknown keys command "${command}"`)
  }
}

function parse(args: string[]) {
  return parseCommandLine(args, OPTIONS)
}

function expectPositionals(positionals: string[], count: number): void {
  if (positionals.length !== count) throw new UsageError(`Unexpected argument "${positionals[count]}"`)
}

function idArgument(positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError('Give exactly one key ID')
  return positiveInteger('ID', positionals[0]!)
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
  try {
    return limitsFor(plan, custom)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

function positiveInteger(what: string, value: string): number {
  const number = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(number)) throw new UsageError(`${what} must be a positive integer, got "${value}"`)
  return number
}

function failed(io: Io, message: string): number {
  io.err(message)
  return EXIT_FAILED
}

function describeLimits({ rpm, rpd }: Limits): string {
  return `${rpm}/min, ${rpd}/day`
}

function table(keys: ApiKey[]): string[] {
  const rows = [
    ['ID', 'NAME', 'PLAN', 'RPM', 'RPD', 'CREATED', 'REVOKED'],
    ...keys.map((k) => [String(k.id), k.name, k.plan, String(k.rpm), String(k.rpd), k.createdAt, k.revokedAt ?? '-']),
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  )
}
