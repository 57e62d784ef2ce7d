import { generateApiKey, hashApiKey } from '../keys/api_key'
import { issueKey } from '../keys/issue'
import { PLANS } from '../keys/plans'
import { ACCESS_LEVELS, type Access, type ApiKey, KEY_CHANGE_SEEN_WITHIN_MS, type KeyStore } from '../keys/store'
import { EXIT_FAILED, type Io, UsageError } from './command_line'
import {
  durationArgument,
  expectPositionals,
  expiryArgument,
  idAndValue,
  idArgument,
  limitsOption,
  nameOption,
  planOption,
} from './key_arguments'
import { describeKey, describeLimits, issuedKeyJson, keyRecord, keyTable } from './key_output'
import {
  type KeysCommand,
  type KeysCommandContext,
  type OpenedKeys,
  type Option,
  parseKeysArguments,
} from './keys_invocation'

/** How long an old key keeps working after `roll` when no `--grace` is given. */
export const DEFAULT_GRACE = '24h'

const appliedSoon = `a running server applies it within ${KEY_CHANGE_SEEN_WITHIN_MS / 1000} s`

/** Every `keys` command: the usage, the options each takes and the dispatch all come from this table. */
export const KEYS_COMMANDS: readonly KeysCommand[] = [
  {
    name: 'create',
    options: ['plan', 'name', 'rpm', 'rpd', 'expires', 'read-only'],
    usage: `--plan ${PLANS.join('|')} [--name TEXT] [--rpm N --rpd N]\n                          [--expires WHEN] [--read-only]`,
    async run({ values, positionals, store, io, now }) {
      expectPositionals(positionals, 0)
      const plan = planOption(values.plan)
      const limits = limitsOption(plan, values)
      const name = nameOption(values.name)
      const expiresAt = values.expires === undefined ? null : expiryArgument('--expires', values.expires, now)
      const access: Access = values['read-only'] ? 'read-only' : 'read-write'
      const { key, secret } = await issueKey(await store(), { name, plan, ...limits, access, expiresAt })
      io.out(values.json ? JSON.stringify(issuedKeyJson(key, secret)) : secret)
      io.err(`Created key ${key.id} "${key.name}": ${describeKey(key)}. It is shown only this once.`)
      return 0
    },
  },
  {
    name: 'list',
    options: [],
    usage: '',
    async run({ values, positionals, store, io }) {
      expectPositionals(positionals, 0)
      const keys = await (await store()).list()
      if (values.json) io.out(JSON.stringify(keys))
      else for (const line of keyTable(keys)) io.out(line)
      return 0
    },
  },
  {
    name: 'show',
    options: [],
    usage: 'ID',
    async run({ values, positionals, store, io }) {
      const id = idArgument(positionals)
      const key = await (await store()).get(id)
      if (key === undefined) throw unknownKey(id)
      if (values.json) io.out(JSON.stringify(key))
      else for (const line of keyRecord(key)) io.out(line)
      return 0
    },
  },
  {
    name: 'revoke',
    options: [],
    usage: 'ID',
    async run({ positionals, store, io, printJson }) {
      const id = idArgument(positionals)
      const key = await (await store()).revoke(id)
      if (!key) throw unknownKey(id)
      printJson(key)
      io.err(`Key ${key.id} "${key.name}" is revoked (since ${key.revokedAt}); ${appliedSoon}.`)
      return 0
    },
  },
  {
    name: 'set-plan',
    options: ['plan', 'rpm', 'rpd'],
    usage: 'ID --plan PLAN [--rpm N --rpd N]',
    async run({ values, positionals, store, io, printJson }) {
      const id = idArgument(positionals)
      const plan = planOption(values.plan)
      const limits = limitsOption(plan, values)
      return changed(
        await store(),
        id,
        (keys) => keys.setPlan(id, plan, limits),
        io,
        (key) => {
          printJson(key)
          io.err(`Key ${key.id} "${key.name}" is now on the ${key.plan} plan (${describeLimits(key)}); ${appliedSoon}.`)
        },
      )
    },
  },
  {
    name: 'set-expiry',
    options: [],
    usage: 'ID WHEN|never',
    async run({ positionals, store, io, now, printJson }) {
      const [id, when] = idAndValue(positionals, 'WHEN (a duration, a date, a timestamp or "never")')
      const expiresAt = when === 'never' ? null : expiryArgument('WHEN', when, now)
      return changed(
        await store(),
        id,
        (keys) => keys.setExpiry(id, expiresAt),
        io,
        (key) => {
          printJson(key)
          const expiry = key.expiresAt ? `expires at ${key.expiresAt}` : 'never expires'
          io.err(`Key ${key.id} "${key.name}" ${expiry}; ${appliedSoon}.`)
        },
      )
    },
  },
  {
    name: 'set-access',
    options: [],
    usage: `ID ${ACCESS_LEVELS.join('|')}`,
    async run({ positionals, store, io, printJson }) {
      const [id, access] = idAndValue(positionals, ACCESS_LEVELS.join(' or '))
      if (!(ACCESS_LEVELS as readonly string[]).includes(access))
        throw new UsageError(`Access must be ${ACCESS_LEVELS.join(' or ')}, got "${access}"`)
      return changed(
        await store(),
        id,
        (keys) => keys.setAccess(id, access as Access),
        io,
        (key) => {
          printJson(key)
          io.err(`Key ${key.id} "${key.name}" is now ${key.access}; ${appliedSoon}.`)
        },
      )
    },
  },
  {
    name: 'roll',
    options: ['grace', 'expires'],
    usage: 'ID [--grace DURATION] [--expires WHEN]',
    async run({ values, positionals, store, io, now }) {
      const id = idArgument(positionals)
      const grace = durationArgument('--grace', values.grace ?? DEFAULT_GRACE)
      const expiresAt = values.expires === undefined ? null : expiryArgument('--expires', values.expires, now)
      const keys = await store()
      const secret = generateApiKey()
      const rolled = await keys.roll(id, hashApiKey(secret), new Date(now + grace).toISOString(), expiresAt)
      if (!rolled) return refusedChange(keys, id, 'it cannot be rolled; make a new key with keys create', io)
      const { old, successor } = rolled
      io.out(values.json ? JSON.stringify({ ...issuedKeyJson(successor, secret), replaces: old }) : secret)
      io.err(
        `Created key ${successor.id} "${successor.name}" to replace key ${old.id}: ${describeKey(successor)}, ` +
          `on the same quota. It is shown only this once. Key ${old.id} works until ${old.expiresAt}.`,
      )
      return 0
    },
  },
  {
    name: 'unban',
    options: [],
    usage: 'ID',
    async run({ positionals, store, io, context, printJson }) {
      const id = idArgument(positionals)
      return changed(
        await store(),
        id,
        (keys) => keys.resetQuota(id),
        io,
        async (key) => {
          printJson(key)
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
      )
    },
  },
]

/** The `keys` lines of the usage, one per command. */
export const KEYS_USAGE = KEYS_COMMANDS.map(
  ({ name, usage }) => `  animal-store keys ${name}${usage === '' ? '' : ` ${usage}`} [--json] [--db PATH]`,
).join('\n')

/** What WHEN and DURATION are, for the usage. */
export const KEYS_USAGE_NOTES = `WHEN: a duration from now (90d, 12h, 30m), a UTC date (2027-01-31, its start) or a timestamp with its zone
(2027-01-31T12:00:00Z). roll makes a new key with the same name, plan, limits and access, counted on the same
quota, and ends the old one after --grace (${DEFAULT_GRACE}; 0 ends it now). unban lifts a ban and clears the key's counts
for this minute and today. A running server applies every change within a second.`

/**
 * `keys <command>`; `--help` asks for the usage. What `openStores` opened is
 * closed before the command returns.
 */
export async function runKeysCommand(args: string[], context: KeysCommandContext): Promise<number | 'help'> {
  const [name, ...rest] = args
  if (name === undefined) throw new UsageError('keys needs a command')
  if (name === '--help' || name === '-h' || name === 'help') return 'help'
  const { values, positionals } = parseKeysArguments(rest)
  if (values.help) return 'help'
  const command = KEYS_COMMANDS.find((known) => known.name === name)
  if (command === undefined) throw new UsageError(`Unknown keys command "${name}"`)
  for (const option of Object.keys(values) as Option[])
    if (option !== 'db' && option !== 'json' && !command.options.includes(option))
      throw new UsageError(`keys ${name} does not take --${option}`)
  let opened: OpenedKeys | undefined
  try {
    return await command.run({
      values,
      positionals,
      store: async () => {
        opened ??= await context.openStores(values.db)
        return opened.keys
      },
      context,
      io: context.io,
      now: (context.clock ?? Date.now)(),
      printJson: (key) => {
        if (values.json) context.io.out(JSON.stringify(key))
      },
    })
  } finally {
    await opened?.close()
  }
}

/** Applies a change to an unrevoked key, or says why it could not (exit 2 for an unknown id, 1 for a revoked key). */
async function changed(
  keys: KeyStore,
  id: number,
  change: (keys: KeyStore) => Promise<ApiKey | undefined> | ApiKey | undefined,
  io: Io,
  report: (key: ApiKey) => void | Promise<void>,
): Promise<number> {
  const key = await change(keys)
  if (!key) return refusedChange(keys, id, 'it cannot change', io)
  await report(key)
  return 0
}

/** Why a change to key `id` did nothing: no such key (a usage error), or one that is revoked or expired (exit 1). */
async function refusedChange(keys: KeyStore, id: number, consequence: string, io: Io): Promise<number> {
  const key = await keys.get(id)
  if (key === undefined) throw unknownKey(id)
  const state = key.revokedAt !== null ? `revoked (since ${key.revokedAt})` : `expired (at ${key.expiresAt})`
  io.err(`Key ${id} is ${state}; ${consequence}`)
  return EXIT_FAILED
}

function unknownKey(id: number): UsageError {
  return new UsageError(`No key with id ${id}; keys list shows them`)
}
