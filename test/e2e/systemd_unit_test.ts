import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ENV_DEFAULTS, loadConfig } from '../../src/config'
import { tempDir } from '../helpers'
import { requireInCi } from './system_commands'

const ROOT = join(import.meta.dir, '..', '..')
const DEPLOY = join(ROOT, 'deploy')
const BINARY = '/usr/local/bin/animal-store'
const VERIFY = requireInCi(Bun.which('systemd-analyze') !== null, 'run systemd-analyze (apt-get install systemd)')
const unit = (name: string) => readFileSync(join(DEPLOY, name), 'utf8')

/** The values of a directive in a unit, in order (a directive may be given more than once). */
function directive(text: string, name: string): string[] {
  return [...text.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((match) => match[1]!)
}

describe('the systemd units in deploy/', () => {
  test.skipIf(!VERIFY)('pass `systemd-analyze verify` with nothing to say', () => {
    // verify wants every ExecStart to exist: the binary is stood in for by Bun's, so the rest is checked.
    const { dir, cleanup } = tempDir('animal-store-units-')
    try {
      const names = readdirSync(DEPLOY)
      expect(names.sort()).toEqual(['animal-store-backup.service', 'animal-store-backup.timer', 'animal-store.service'])
      for (const name of names)
        writeFileSync(join(dir, name), unit(name).replaceAll(BINARY, join(ROOT, 'node_modules', '.bin', 'bun')))
      const verified = Bun.spawnSync(['systemd-analyze', 'verify', ...names.map((name) => join(dir, name))], {
        stdout: 'pipe',
        stderr: 'pipe',
      })
      // An unknown or misspelt directive is only a warning: any word from verify fails the test.
      expect({ code: verified.exitCode, said: `${verified.stdout}${verified.stderr}` }).toEqual({ code: 0, said: '' })
    } finally {
      cleanup()
    }
  })

  test('the service is hardened: its own user, a state directory, no new privileges, a read-only system', () => {
    const service = unit('animal-store.service')
    const expected: Record<string, string> = {
      ExecStart: `${BINARY} serve`,
      User: 'animal-store',
      DynamicUser: 'yes',
      StateDirectory: 'animal-store',
      LimitNOFILE: '65536',
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      Restart: 'on-failure',
      RestartPreventExitStatus: '2',
      CapabilityBoundingSet: '',
    }
    for (const [name, value] of Object.entries(expected))
      expect({ name, values: directive(service, name) }).toEqual({ name, values: [value] })
    // The backup runs as the same user name, so it can read the state directory.
    const backup = unit('animal-store-backup.service')
    expect(directive(backup, 'User')).toEqual(['animal-store'])
    expect(directive(backup, 'StateDirectory')).toEqual(['animal-store'])
    expect(directive(unit('animal-store-backup.timer'), 'Persistent')).toEqual(['true'])
  })

  test('sets only settings the service reads, and they pass its configuration check', () => {
    for (const name of ['animal-store.service', 'animal-store-backup.service']) {
      const env = Object.fromEntries(
        directive(unit(name), 'Environment')
          .flatMap((line) => line.split(' '))
          .map((pair) => pair.split('=') as [string, string]),
      )
      for (const variable of Object.keys(env))
        expect({ name, variable, known: variable in ENV_DEFAULTS }).toEqual({
          name,
          variable,
          known: true,
        })
      expect(() => loadConfig(env)).not.toThrow()
    }
  })

  test('reload sends SIGHUP only with TLS on, and says there is nothing to reload without it', async () => {
    const [reload] = directive(unit('animal-store.service'), 'ExecReload')
    // As systemd runs it: `$$` is a literal `$`, and MAINPID is in the environment.
    const [, shell, flag, script] = /^(\S+) (-c) '(.*)'$/.exec(reload!) ?? []
    expect(shell).toBe('/bin/sh')
    const run = async (env: Record<string, string>) => {
      const main = Bun.spawn(['sleep', '30'])
      const reloading = Bun.spawnSync([shell!, flag!, script!.replaceAll('$$', '$')], {
        env: { PATH: process.env.PATH!, MAINPID: String(main.pid), ...env },
        stderr: 'pipe',
      })
      const ended = await Promise.race([main.exited.then(() => main.signalCode), Bun.sleep(300).then(() => 'running')])
      main.kill()
      return { code: reloading.exitCode, said: reloading.stderr.toString(), main: ended }
    }
    expect(await run({})).toEqual({ code: 0, said: 'animal-store: TLS is off, nothing to reload\n', main: 'running' })
    expect(await run({ TLS_CERT_FILE: '/etc/animal-store/cert.pem' })).toEqual({ code: 0, said: '', main: 'SIGHUP' })
  })
})
