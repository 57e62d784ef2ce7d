import { describe, expect, test } from 'bun:test'
import { EXIT_FAILED, EXIT_USAGE, type Io } from '../../src/cli/command_line'
import { runCli } from '../../src/cli/commands'
import { DEFAULT_GRACE, KEYS_COMMANDS, KEYS_USAGE, runKeysCommand } from '../../src/cli/keys_commands'
import type { KeysCommandContext } from '../../src/cli/keys_invocation'
import { openDatabase } from '../../src/db/sqlite'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import type { ApiKey } from '../../src/keys/store'

const NOW = Date.parse('2026-11-23T14:00:00.000Z')

/** A keys CLI on a private SQLite database, at NOW, that keeps what it printed. */
function keysCli(resetSharedQuota?: KeysCommandContext['resetSharedQuota']) {
  const db = openDatabase(':memory:')
  const keys = new SqliteKeyStore(db, { clock: () => NOW })
  let out: string[] = []
  let err: string[] = []
  const io: Io = { out: (line) => out.push(line), err: (line) => err.push(line) }
  const run = async (...args: string[]) => {
    out = []
    err = []
    let code: number | 'help'
    try {
      code = await runKeysCommand(args, {
        openStores: async () => ({ keys, close: async () => {} }),
        resetSharedQuota,
        clock: () => NOW,
        io,
      })
    } catch (error) {
      // What runCli turns into a usage message and exit 2.
      err.push((error as Error).message)
      code = (error as Error).name === 'UsageError' ? EXIT_USAGE : Number.NaN
    }
    return { code, out: out.join('\n'), err: err.join('\n') }
  }
  const created = async (...args: string[]) => JSON.parse((await run('create', '--json', ...args)).out)
  return { run, created, keys }
}

/** Runs `args` on a CLI with one Free key (id 1): exit 2, `message` on stderr, nothing on stdout. */
async function expectUsageErrorOnKeyOne(args: string[], message: string) {
  const { run, created } = keysCli()
  await created('--plan', 'free')
  const result = await run(...args)
  expect(result.code).toBe(EXIT_USAGE)
  expect(result.err).toContain(message)
  expect(result.out).toBe('')
}

describe('keys create', () => {
  test('--expires takes a duration, a UTC date or a timestamp with its zone', async () => {
    const { created } = keysCli()
    for (const [when, expiresAt] of [
      ['90d', '2027-02-21T14:00:00.000Z'],
      ['12h', '2026-11-24T02:00:00.000Z'],
      ['30m', '2026-11-23T14:30:00.000Z'],
      ['2027-01-31', '2027-01-31T00:00:00.000Z'],
      ['2027-01-31T12:00:00Z', '2027-01-31T12:00:00.000Z'],
      ['2027-01-31T12:00:00+01:00', '2027-01-31T11:00:00.000Z'],
    ])
      expect((await created('--plan', 'free', '--expires', when!)).expiresAt).toBe(expiresAt)
  })

  test('--json prints {id,key,name,plan,rpm,rpd,access,expiresAt}; --read-only makes a read-only key', async () => {
    const { created } = keysCli()
    const key = await created('--plan', 'pro', '--name', 'storefront', '--read-only')
    expect(Object.keys(key)).toEqual(['id', 'key', 'name', 'plan', 'rpm', 'rpd', 'access', 'expiresAt'])
    expect(key).toMatchObject({ name: 'storefront', plan: 'pro', access: 'read-only', expiresAt: null })
    expect((await created('--plan', 'free')).access).toBe('read-write')
  })

  test.each([
    [['--expires', 'tomorrow'], '--expires: "tomorrow" is not a time'],
    [['--expires', '2020-01-01'], '--expires: "2020-01-01" is in the past'],
    [['--expires', '0'], 'is not a time'],
    [['--expires', '2027-02-30'], 'is not a time'],
    [['--expires', '2027-01-31T12:00:00'], 'is not a time'],
    [['--expires', '-5m'], 'argument is ambiguous'],
    [['--read-only', '--rpm', '5', '--rpd', '5'], 'only for the enterprise plan'],
    [['--read-only=yes'], 'does not take an argument'],
    [['--grace', '1h'], 'keys create does not take --grace'],
  ])('%p is a usage error', async (args, message) => {
    const { run } = keysCli()
    const result = await run('create', '--plan', 'free', ...args)
    expect(result.code).toBe(EXIT_USAGE)
    expect(result.err).toContain(message)
    expect(result.out).toBe('')
  })
})

describe('keys list and show', () => {
  test('list shows plan, limits, access, created, expires, revoked and last use, to the minute', async () => {
    const { run, created, keys } = keysCli()
    const key = await created('--plan', 'pro', '--name', 'a', '--expires', '2027-01-31')
    keys.recordUse([key.id], '2026-11-23T13:59:00.000Z')
    const { code, out } = await run('list')
    expect(code).toBe(0)
    const [header, row] = out.split('\n')
    expect(header).toMatch(/^ID\s+NAME\s+PLAN\s+RPM\s+RPD\s+ACCESS\s+CREATED\s+EXPIRES\s+REVOKED\s+LAST USED$/)
    expect(row).toMatch(
      /^1\s+a\s+pro\s+300\s+10000\s+read-write\s+2026-11-23T14:00Z\s+2027-01-31T00:00Z\s+-\s+2026-11-23T13:59Z$/,
    )
    const [listed] = JSON.parse((await run('list', '--json')).out)
    expect(listed).toEqual({
      id: 1,
      name: 'a',
      plan: 'pro',
      rpm: 300,
      rpd: 10_000,
      access: 'read-write',
      createdAt: '2026-11-23T14:00:00.000Z',
      expiresAt: '2027-01-31T00:00:00.000Z',
      revokedAt: null,
      lastUsedAt: '2026-11-23T13:59:00.000Z',
      rolledFrom: null,
      quotaId: 1,
      quotaResetAt: null,
    })
    expect(out).not.toContain('ask_')
  })

  test('show prints one key field by field, or with --json its record; never the secret', async () => {
    const { run, created } = keysCli()
    const { key: secret } = await created('--plan', 'free', '--name', 'one')
    const shown = await run('show', '1')
    expect(shown.code).toBe(0)
    expect(shown.out).toContain('name:         one')
    expect(shown.out).toContain('expires:      never')
    expect(shown.out).toContain('last used:    never')
    expect(shown.out).not.toContain(secret)
    expect(JSON.parse((await run('show', '1', '--json')).out)).toMatchObject({ id: 1, name: 'one', quotaId: 1 })
    expect((await run('show', '2')).code).toBe(EXIT_USAGE)
  })
})

describe('keys set-expiry and set-access', () => {
  test('set-expiry takes WHEN or never; set-access read-only or read-write', async () => {
    const { run, created } = keysCli()
    await created('--plan', 'free')
    const expiring = await run('set-expiry', '1', '7d', '--json')
    expect(expiring.code).toBe(0)
    expect(JSON.parse(expiring.out).expiresAt).toBe('2026-11-30T14:00:00.000Z')
    expect(expiring.err).toContain('expires at 2026-11-30T14:00:00.000Z')
    expect(JSON.parse((await run('set-expiry', '1', 'never', '--json')).out).expiresAt).toBeNull()
    expect(JSON.parse((await run('set-access', '1', 'read-only', '--json')).out).access).toBe('read-only')
    const back = await run('set-access', '1', 'read-write')
    expect(back).toMatchObject({ code: 0, out: '' })
    expect(back.err).toContain('is now read-write')
  })

  test.each([
    [['set-expiry', '1'], 'Give a key ID and WHEN'],
    [['set-expiry', '1', 'yesterday'], 'WHEN: "yesterday" is not a time'],
    [['set-expiry', '1', '2000-01-01'], 'is in the past'],
    [['set-expiry', '9', 'never'], 'No key with id 9'],
    [['set-access', '1', 'write-only'], 'Access must be read-write or read-only'],
    [['set-access', '1'], 'Give a key ID and read-write or read-only'],
    [['set-access', 'x', 'read-only'], 'ID must be a positive integer'],
    [['set-access', '9', 'read-only'], 'No key with id 9'],
    [['set-expiry', '1', 'never', '--read-only'], 'keys set-expiry does not take --read-only'],
  ])('%p is a usage error', expectUsageErrorOnKeyOne)

  test('a revoked key is refused with exit 1', async () => {
    const { run, created } = keysCli()
    await created('--plan', 'free')
    await run('revoke', '1')
    for (const args of [
      ['set-expiry', '1', 'never'],
      ['set-access', '1', 'read-only'],
      ['unban', '1'],
      ['roll', '1'],
    ]) {
      const result = await run(...args)
      expect(result.code).toBe(EXIT_FAILED)
      expect(result.err).toContain('Key 1 is revoked')
    }
  })
})

describe('keys roll', () => {
  test(`prints the new key alone; the old one ends after --grace (${DEFAULT_GRACE} by default)`, async () => {
    const { run, created, keys } = keysCli()
    await created('--plan', 'business', '--name', 'api', '--read-only')
    const rolled = await run('roll', '1')
    expect(rolled.code).toBe(0)
    expect(rolled.out).toMatch(/^ask_[A-Za-z0-9_-]{43}$/)
    expect(rolled.err).toContain('Key 1 works until 2026-11-24T14:00:00.000Z')
    expect(rolled.err).not.toContain(rolled.out)
    expect(keys.get(2)).toMatchObject({ name: 'api', plan: 'business', access: 'read-only', quotaId: 1, rolledFrom: 1 })
    expect(keys.get(1)?.expiresAt).toBe('2026-11-24T14:00:00.000Z')
  })

  test('--json prints the new key as create does, and the key it replaces; --grace 0 ends the old key now', async () => {
    const { run, created } = keysCli()
    await created('--plan', 'free')
    const rolled = JSON.parse((await run('roll', '1', '--grace', '0', '--expires', '30d', '--json')).out)
    expect(Object.keys(rolled)).toEqual(['id', 'key', 'name', 'plan', 'rpm', 'rpd', 'access', 'expiresAt', 'replaces'])
    expect(rolled).toMatchObject({ id: 2, expiresAt: '2026-12-23T14:00:00.000Z' })
    expect(rolled.replaces).toMatchObject({ id: 1, expiresAt: '2026-11-23T14:00:00.000Z' })
    // It expired now, so it cannot be rolled again.
    const again = await run('roll', '1')
    expect(again.code).toBe(EXIT_FAILED)
    expect(again.err).toContain('Key 1 is expired (at 2026-11-23T14:00:00.000Z)')
  })

  test.each([
    [['roll', '1', '--grace', 'soon'], '--grace: "soon" is not a duration'],
    [['roll', '1', '--grace=-1h'], '--grace: "-1h" is not a duration'],
    [['roll', '1', '--grace', '-1h'], 'argument is ambiguous'],
    [['roll', '1', '--expires', '2001-01-01'], 'is in the past'],
    [['roll', '1', '--plan', 'pro'], 'keys roll does not take --plan'],
    [['roll'], 'Give exactly one key ID'],
    [['roll', '7'], 'No key with id 7'],
  ])('%p is a usage error', expectUsageErrorOnKeyOne)
})

describe('keys unban', () => {
  test('notes the reset; with Redis it is applied there at once, or said to follow when Redis does not answer', async () => {
    const applied: ApiKey[] = []
    let answers = true
    const { run, created } = keysCli(async (key) => {
      applied.push(key)
      return answers
    })
    await created('--plan', 'free')
    const result = await run('unban', '1', '--json')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.out).quotaResetAt).toBe('2026-11-23T14:00:00.000Z')
    expect(result.err).toContain("ban lifted and this minute's and today's counts cleared in Redis now")
    expect(applied.map((key) => key.id)).toEqual([1])
    answers = false
    expect((await run('unban', '1')).err).toContain('Redis does not answer, so each server applies it within 1 s')
  })

  test('without Redis, says a running server applies it; on a rolled key, names the quota it shares', async () => {
    const { run, created } = keysCli()
    await created('--plan', 'free')
    await run('roll', '1')
    const result = await run('unban', '2')
    expect(result.code).toBe(0)
    expect(result.out).toBe('')
    expect(result.err).toContain('(the quota it shares with key 1); a running server applies it within 1 s')
    expect((await run('unban', '3')).code).toBe(EXIT_USAGE)
    expect((await run('unban')).code).toBe(EXIT_USAGE)
  })
})

describe('keys --help', () => {
  test.each([[['keys', '--help']], [['keys', 'help']], [['keys', 'roll', '--help']]])(
    '%p lists every command on stdout, exit 0',
    async (argv) => {
      const out: string[] = []
      const code = await runCli(argv, {}, { out: (line) => out.push(line), err: () => {} })
      expect(code).toBe(0)
      for (const command of [
        'create',
        'list',
        'show',
        'revoke',
        'set-plan',
        'set-expiry',
        'set-access',
        'roll',
        'unban',
      ])
        expect(out.join('\n')).toContain(`animal-store keys ${command} `)
    },
  )
})

describe('the table of keys commands', () => {
  test('the usage has a line for each command, naming exactly the options it takes besides --json and --db', () => {
    const lines = KEYS_USAGE.replace(/\n {26}/g, ' ').split('\n')
    expect(lines).toHaveLength(KEYS_COMMANDS.length)
    for (const [index, command] of KEYS_COMMANDS.entries()) {
      const line = lines[index] as string
      expect(line).toStartWith(`  animal-store keys ${command.name}`)
      expect(line).toEndWith('[--json] [--db PATH]')
      const named = [...line.matchAll(/--([a-z-]+)/g)]
        .map((match) => match[1])
        .filter((o) => o !== 'json' && o !== 'db')
      expect({ command: command.name, options: [...new Set(named)].sort() }).toEqual({
        command: command.name,
        options: [...command.options].sort(),
      })
    }
  })

  test('a command refuses an option another one takes', async () => {
    const { run } = keysCli()
    for (const command of KEYS_COMMANDS) {
      const foreign = KEYS_COMMANDS.flatMap((other) => other.options).find((o) => !command.options.includes(o))
      if (foreign === undefined) continue
      const result = await run(command.name, `--${foreign}`, ...(foreign === 'read-only' ? [] : ['x']))
      expect({ code: result.code, err: result.err }).toEqual({
        code: EXIT_USAGE,
        err: `keys ${command.name} does not take --${foreign}`,
      })
    }
  })
})
