import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers'
import { childrenOf } from '../shared_services'

const ROOT = join(import.meta.dir, '..', '..')
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const ENGINES: string = packageJson.engines.node

/** The oldest Node of each line the engines range takes: an install there must satisfy every package. */
const OLDEST_SUPPORTED = ['20.19.0', '22.12.0']

describe('installing on the Node people have', () => {
  test('package.json declares the Node range, and the README names it beside the set-up commands', () => {
    expect(ENGINES).toBe('^20.19.0 || >=22.12.0')
    for (const version of OLDEST_SUPPORTED) expect(Bun.semver.satisfies(version, ENGINES)).toBe(true)
    expect(Bun.semver.satisfies('18.20.0', ENGINES)).toBe(false)
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toContain('Node.js 20.19 or later (or 22.12 or later)')
    expect(readme).toContain('npm ci --omit=dev && npm start')
  })

  test('every package the lockfile installs accepts the oldest Node of each supported line: no EBADENGINE', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>
    }
    const refusing: string[] = []
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      if (path === '' || range === undefined) continue
      for (const version of OLDEST_SUPPORTED)
        if (!Bun.semver.satisfies(version, range)) refusing.push(`${path} wants node ${range}, not ${version}`)
    }
    expect(refusing).toEqual([])
  })

  test('`npm ci --omit=dev && npm start` on a fresh clone installs no test tool and serves', async () => {
    const { dir, cleanup } = tempDir('animal-store-install-')
    const started: number[] = []
    try {
      const clone = join(dir, 'clone')
      expect(Bun.spawnSync(['git', 'clone', '--quiet', ROOT, clone]).exitCode).toBe(0)
      const install = Bun.spawnSync(['npm', 'ci', '--omit=dev', '--no-audit', '--no-fund'], {
        cwd: clone,
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const said = `${install.stdout}${install.stderr}`
      expect({ code: install.exitCode, said: install.exitCode === 0 ? '' : said }).toEqual({ code: 0, said: '' })
      expect(said).not.toContain('EBADENGINE')
      // What the service needs is there; none of the test and bench tools is.
      for (const dependency of Object.keys(packageJson.dependencies))
        expect({ dependency, installed: existsSync(join(clone, 'node_modules', dependency)) }).toEqual({
          dependency,
          installed: true,
        })
      // Every package only the tests and benches need (the lockfile marks them dev) stays out: 339 MB of them.
      const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { dev?: boolean }>
      }
      const devOnly = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.dev === true)
      expect(devOnly.map(([path]) => path)).toContain('node_modules/@biomejs/biome')
      const installed = devOnly.filter(([path]) => existsSync(join(clone, path))).map(([path]) => path)
      expect(installed).toEqual([])
      const npm = Bun.spawn(['npm', 'start'], {
        cwd: clone,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'store.sqlite') },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      started.push(npm.pid)
      let text = ''
      const decoder = new TextDecoder()
      const reader = npm.stderr.getReader()
      const deadline = Date.now() + 20_000
      let url: string | undefined
      while (url === undefined && Date.now() < deadline) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
        url = /listening on (http:\/\/\S+)/.exec(text)?.[1]
      }
      expect({ url: url !== undefined, text: url === undefined ? text : '' }).toEqual({ url: true, text: '' })
      // npm runs the service as its child: stopped by that PID too.
      started.push(...childrenOf(npm.pid))
      const health = await fetch(`${url}/health`)
      expect(health.status).toBe(200)
      expect((await fetch(`${url}/openapi.json`)).status).toBe(200)
    } finally {
      for (const pid of started.reverse()) {
        try {
          process.kill(pid, 'SIGTERM')
        } catch {
          // already gone
        }
      }
      cleanup()
    }
  }, 180_000)
})
