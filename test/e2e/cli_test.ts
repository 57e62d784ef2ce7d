import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../helpers'
import { runCli } from './process_helpers'

let workspace: ReturnType<typeof tempDir>
let db: string
beforeAll(() => {
  workspace = tempDir('animal-store-cli-')
  db = join(workspace.dir, 'cli.sqlite')
})
afterAll(() => workspace.cleanup())

describe('keys create', () => {
  test('prints the new key alone on stdout and the rest on stderr', async () => {
    const result = await runCli(['keys', 'create', '--plan', 'pro', '--name', 'ci', '--db', db])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^ask_[A-Za-z0-9_-]{43}\n$/)
    expect(result.stderr).toContain('pro plan (300/min, 10000/day), read-write, never expires')
    expect(result.stderr).not.toContain(result.stdout.trim())
  })

  test('prints {id,key,name,plan,rpm,rpd,access,expiresAt} with --json', async () => {
    const result = await runCli([
      'keys',
      'create',
      '--plan',
      'enterprise',
      '--rpm',
      '5000',
      '--rpd',
      '2000000',
      '--name',
      'big',
      '--json',
      '--db',
      db,
    ])
    expect(result.code).toBe(0)
    const created = JSON.parse(result.stdout)
    expect(Object.keys(created)).toEqual(['id', 'key', 'name', 'plan', 'rpm', 'rpd', 'access', 'expiresAt'])
    expect(created).toMatchObject({ name: 'big', plan: 'enterprise', rpm: 5000, rpd: 2_000_000 })
    expect(created.key).toMatch(/^ask_/)
  })

  test.each([
    [['keys', 'create'], '--plan is required'],
    [['keys', 'create', '--plan', 'gold'], '--plan must be one of'],
    [['keys', 'create', '--plan', 'enterprise'], 'needs both --rpm and --rpd'],
    [['keys', 'create', '--plan', 'enterprise', '--rpm', '5'], 'needs both --rpm and --rpd'],
    [['keys', 'create', '--plan', 'pro', '--rpm', '5', '--rpd', '5'], 'only for the enterprise plan'],
    [['keys', 'create', '--plan', 'enterprise', '--rpm', '0', '--rpd', '5'], '--rpm must be a positive integer'],
    [['keys', 'create', '--plan', 'enterprise', '--rpm', '1.5', '--rpd', '5'], '--rpm must be a positive integer'],
    [['keys', 'create', '--plan', 'free', '--colour', 'red'], "Unknown option '--colour'"],
    [['keys', 'create', '--plan', 'free', 'extra'], 'Unexpected argument "extra"'],
    [['keys', 'create', '--plan', 'free', '--name', ' '], '--name must be'],
  ])('exits 2 with a usage message for %p', async (args, message) => {
    const result = await runCli([...args, '--db', db])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
    expect(result.stderr).toEndWith('(animal-store --help shows the usage)\n')
    expect(result.stderr).not.toContain('Usage:')
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stdout).toBe('')
  })
})

describe('keys list', () => {
  test('shows id, name, plan, limits, access, created, expires, revoked and last use, never a secret or hash', async () => {
    const { stdout: secret } = await runCli(['keys', 'create', '--plan', 'business', '--name', 'listed', '--db', db])
    const table = await runCli(['keys', 'list', '--db', db])
    expect(table.code).toBe(0)
    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID\s+NAME\s+PLAN\s+RPM\s+RPD\s+ACCESS\s+CREATED\s+EXPIRES\s+REVOKED\s+LAST USED$/,
    )
    expect(table.stdout).toMatch(/listed\s+business\s+1000\s+100000\s+read-write/)
    const json = await runCli(['keys', 'list', '--json', '--db', db])
    const keys = JSON.parse(json.stdout)
    expect(keys.find((k: { name: string }) => k.name === 'listed')).toMatchObject({
      plan: 'business',
      rpm: 1000,
      rpd: 100_000,
      revokedAt: null,
    })
    for (const output of [table.stdout, json.stdout]) {
      expect(output).not.toContain(secret.trim())
      expect(output).not.toContain(Bun.SHA256.hash(secret.trim(), 'hex'))
      expect(output).not.toContain('ask_')
    }
  })
})

describe('keys revoke and set-plan', () => {
  test('revoke marks the key revoked', async () => {
    const created = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', db])).stdout)
    const result = await runCli(['keys', 'revoke', String(created.id), '--json', '--db', db])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).revokedAt).toBeString()
  })

  test('set-plan changes plan and limits', async () => {
    const created = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', db])).stdout)
    const result = await runCli([
      'keys',
      'set-plan',
      String(created.id),
      '--plan',
      'enterprise',
      '--rpm',
      '100',
      '--rpd',
      '200',
      '--json',
      '--db',
      db,
    ])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ id: created.id, plan: 'enterprise', rpm: 100, rpd: 200 })
  })

  test('set-plan refuses a revoked key with exit 1, and an unknown id as a usage error (exit 2)', async () => {
    const created = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', db])).stdout)
    await runCli(['keys', 'revoke', String(created.id), '--db', db])
    const revoked = await runCli(['keys', 'set-plan', String(created.id), '--plan', 'pro', '--db', db])
    expect(revoked.code).toBe(1)
    expect(revoked.stderr).toContain('is revoked')
    const unknown = await runCli(['keys', 'set-plan', '99999', '--plan', 'pro', '--db', db])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('No key with id 99999')
    expect((await runCli(['keys', 'revoke', '99999', '--db', db])).code).toBe(2)
  })

  test.each([
    [['keys', 'revoke']],
    [['keys', 'revoke', 'abc']],
    [['keys', 'revoke', '1', '2']],
    [['keys', 'set-plan', '1']],
    [['keys']],
    [['keys', 'rotate']],
    [['unknown']],
    [[]],
    [['serve', '--port', '1']],
  ])('exits 2 with one line and where the usage is for %p', async (args) => {
    const result = await runCli([...args, ...(args[0] === 'keys' ? ['--db', db] : [])])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/ \(animal-store --help shows the usage\)$/),
    ])
  })
})

describe('with DATABASE_URL (PostgreSQL)', () => {
  // Refused before any connection is tried, so no server is needed.
  test('keys --db, serve --db and backup are configuration errors (exit 2)', async () => {
    const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }
    const withDb = await runCli(['keys', 'list', '--db', 'x.sqlite'], env)
    expect(withDb.code).toBe(2)
    expect(withDb.stderr).toContain('DATABASE_URL: --db names a SQLite file')
    const serve = await runCli(['serve', '--db', 'x.sqlite'], env)
    expect(serve.code).toBe(2)
    expect(serve.stderr).toContain('DATABASE_URL: --db names a SQLite file')
    const backup = await runCli(['backup', 'copy.sqlite'], env)
    expect(backup.code).toBe(2)
    expect(backup.stderr).toContain('for PostgreSQL use pg_dump')
  })

  test('an unreachable database is a configuration error naming DATABASE_URL, without its password', async () => {
    const result = await runCli(['keys', 'list'], { DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/none' })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('DATABASE_URL: cannot open "postgres://app:***@127.0.0.1:1/none"')
    expect(result.stderr).not.toContain('hunter2')
  })
})
