import { describe, expect, test } from 'bun:test'
import packageJson from '../../package.json' with { type: 'json' }
import { EXIT_USAGE, type Io } from '../../src/cli/command_line'
import { runCli, USAGE } from '../../src/cli/commands'
import { ENV_DEFAULTS } from '../../src/config'
import { describePlans, PLANS } from '../../src/keys/plans'

/** An Io that keeps what a command writes. */
function capture() {
  const lines = { out: [] as string[], err: [] as string[] }
  const io: Io = { out: (line) => lines.out.push(line), err: (line) => lines.err.push(line) }
  return { io, lines }
}

describe('runCli, in process', () => {
  test('--help prints the usage on stdout and exits 0', async () => {
    const { io, lines } = capture()
    expect(await runCli(['--help'], {}, io)).toBe(0)
    expect(lines.out).toEqual([USAGE])
  })

  test.each([
    [[], 'Missing command'],
    [['frobnicate'], 'Unknown command "frobnicate"'],
    [['serve', '--port', '1'], 'serve takes only --db PATH'],
    [['backup'], 'backup takes one FILE'],
    [['keys', 'rotate'], 'Unknown keys command "rotate"'],
  ])('%p is a usage error: one line on stderr, the reason and where the usage is, exit 2', async (argv, reason) => {
    const { io, lines } = capture()
    expect(await runCli(argv, {}, io)).toBe(EXIT_USAGE)
    expect(lines.err).toHaveLength(1)
    expect(lines.err[0]).toStartWith(reason)
    expect(lines.err[0]).toEndWith(' (animal-store --help shows the usage)')
    expect(lines.out).toEqual([])
  })

  test('--version prints the version of package.json on stdout and exits 0', async () => {
    const { io, lines } = capture()
    expect(await runCli(['--version'], {}, io)).toBe(0)
    expect(lines.out).toEqual([`animal-store ${packageJson.version}`])
  })

  test('a bad environment variable is one line naming it, exit 2', async () => {
    const { io, lines } = capture()
    expect(await runCli(['keys', 'list'], { PORT: 'eighty' }, io)).toBe(EXIT_USAGE)
    expect(lines.err).toEqual(['Configuration error: PORT: must be an integer from 0 to 65535, got "eighty"'])
    for (const [variable, value] of [
      ['CORS_ORIGINS', 'shop.example'],
      ['ADMIN_PORT', 'nine'],
      ['TLS_CERT_FILE', 'cert.pem'],
    ]) {
      const bad = capture()
      expect(await runCli(['keys', 'list'], { [variable as string]: value }, bad.io)).toBe(EXIT_USAGE)
      expect(bad.lines.err).toEqual([
        expect.stringMatching(/^Configuration error: (CORS_ORIGINS|ADMIN_PORT|TLS_KEY_FILE): /),
      ])
    }
  })
})

describe('USAGE', () => {
  test('quotes every environment default and the plans as the code has them', () => {
    for (const [variable, value] of Object.entries(ENV_DEFAULTS)) {
      expect(USAGE).toMatch(new RegExp(`${variable} \\((?:[a-z|]+; )?${String(value).replace('.', '\\.')}[),:]`))
    }
    expect(USAGE).toContain(describePlans())
    expect(USAGE).toContain(`--plan ${PLANS.join('|')}`)
  })
})
