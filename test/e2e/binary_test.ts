import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { tempDir } from '../helpers'
import { type Program, printedKey, runCli, startServer } from './process_helpers'

const ROOT = join(import.meta.dir, '..', '..')

// `npm run build`, then the binary alone in an empty folder: no node_modules, no sources.
describe('the compiled binary', () => {
  let workspace: ReturnType<typeof tempDir>
  let binary: Program

  beforeAll(async () => {
    const build = Bun.spawn(['npm', 'run', 'build'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    const [stderr, code] = await Promise.all([new Response(build.stderr).text(), build.exited])
    if (code !== 0) throw new Error(`npm run build failed:\n${stderr}`)
    workspace = tempDir('animal-store-binary-')
    copyFileSync(join(ROOT, 'dist', 'animal-store'), join(workspace.dir, 'animal-store'))
    chmodSync(join(workspace.dir, 'animal-store'), 0o755)
    binary = { command: [join(workspace.dir, 'animal-store')], cwd: workspace.dir }
    expect(readdirSync(workspace.dir)).toEqual(['animal-store'])
  }, 120_000)
  afterAll(() => workspace?.cleanup())

  test('runs every keys command', async () => {
    const created = await runCli(
      ['keys', 'create', '--plan', 'enterprise', '--rpm', '10', '--rpd', '20', '--json', '--db', 'keys.sqlite'],
      {},
      binary,
    )
    expect(created.code).toBe(0)
    const { id } = JSON.parse(created.stdout)
    expect(
      (await runCli(['keys', 'set-plan', String(id), '--plan', 'pro', '--db', 'keys.sqlite'], {}, binary)).code,
    ).toBe(0)
    expect((await runCli(['keys', 'revoke', String(id), '--db', 'keys.sqlite'], {}, binary)).code).toBe(0)
    const list = JSON.parse((await runCli(['keys', 'list', '--json', '--db', 'keys.sqlite'], {}, binary)).stdout)
    expect(list).toEqual([expect.objectContaining({ id, plan: 'pro', revokedAt: expect.any(String) })])
    expect((await runCli(['keys', 'create'], {}, binary)).code).toBe(2)
  })

  test('--version prints the version of package.json', async () => {
    const result = await runCli(['--version'], {}, binary)
    expect(result).toEqual({ code: 0, stdout: `animal-store ${packageJson.version}\n`, stderr: '' })
  })

  test('serves the API and the docs with their assets, and stops cleanly', async () => {
    const server = await startServer({ DATABASE_PATH: join(workspace.dir, 'data', 'store.sqlite') }, binary)
    try {
      const key = printedKey(server.stderr())
      const pets = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
      expect(pets.status).toBe(200)
      for (const [path, type] of [
        ['/docs', 'text/html'],
        ['/docs/swagger-ui-bundle.js', 'application/javascript'],
        ['/docs/swagger-ui.css', 'text/css'],
        ['/openapi.json', 'application/json'],
        ['/health', 'application/json'],
      ] as const) {
        const response = await fetch(server.url + path)
        expect({ path, status: response.status }).toEqual({ path, status: 200 })
        expect(response.headers.get('content-type')).toStartWith(type)
        await response.arrayBuffer()
      }
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})
