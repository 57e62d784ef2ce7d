import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers'
import { runCli, startServer } from './process_helpers'

describe('keys are never logged, echoed or stored', () => {
  test('a full run leaves no issued key in the logs, the answers or the database files', async () => {
    const workspace = tempDir('animal-store-secrets-')
    try {
      const db = join(workspace.dir, 'store.sqlite')
      const issue = async (args: string[]) =>
        JSON.parse((await runCli(['keys', 'create', ...args, '--json', '--db', db])).stdout).key as string
      const keys = [
        await issue(['--plan', 'free']),
        await issue(['--plan', 'pro']),
        await issue(['--plan', 'enterprise', '--rpm', '5', '--rpd', '10']),
      ]
      const revoked = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json', '--db', db])).stdout)
      keys.push(revoked.key)
      await runCli(['keys', 'revoke', String(revoked.id), '--db', db])

      const server = await startServer({ DATABASE_PATH: db, LOG_LEVEL: 'info' })
      const stdout = new Response(server.proc.stdout as ReadableStream).text()
      const answers: string[] = []
      const send = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(server.url + path, init)
        answers.push(JSON.stringify([...response.headers]), await response.text())
      }
      for (const key of keys) {
        const auth = { authorization: `Bearer ${key}` }
        await send('/v1/pets', { headers: auth })
        await send(`/v1/pets/${key}`, { headers: auth })
        await send(`/v1/${key}`, { headers: auth })
        await send(`/v1/pets?${key}=1`, { headers: auth })
        await send(`/v1/pets?status=${key}`, { headers: auth })
        await send('/v1/pets', { headers: { ...auth, 'x-request-id': key } })
        await send('/v1/pets', { method: 'DELETE', headers: auth })
        await send(`/nowhere/${key}`)
        await send('/v1/pets', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ [key]: 1 }),
        })
        await send('/v1/pets', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
        })
        await send('/v1/pets', { headers: { authorization: `Basic ${key}` } })
        await send('/v1/pets', { headers: { authorization: `Bearer ${key}x` } })
      }
      expect(await server.stop()).toBe(0)
      const logs = (await stdout) + server.stderr()
      expect(logs).toContain('"msg":"request"')

      const files = readdirSync(workspace.dir).filter((name) => name.startsWith('store.sqlite'))
      expect(files).toContain('store.sqlite')
      const stored = files.map((name) => readFileSync(join(workspace.dir, name)).toString('latin1')).join('\n')
      for (const key of keys) {
        const secret = key.slice('ask_'.length)
        for (const [where, text] of [
          ['logs', logs],
          ['answers', answers.join('\n')],
          ['database files', stored],
        ] as const) {
          expect({ where, leaks: text.includes(secret) }).toEqual({ where, leaks: false })
        }
      }
    } finally {
      workspace.cleanup()
    }
  }, 60_000)
})
