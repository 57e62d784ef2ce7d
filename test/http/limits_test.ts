import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import {
  BUN_HEAD_SIZE_FLAG,
  BUN_MAX_BODY_BYTES,
  BUN_MAX_HEAD_BYTES,
  kib,
  MAX_BODY_BYTES,
  MAX_HEADER_BYTES,
  MAX_TARGET_BYTES,
} from '../../src/http/limits'

const ROOT = join(import.meta.dir, '..', '..')

/** Every `--max-http-header-size=N` written in a file of the project. */
async function headSizeFlags(file: string): Promise<string[]> {
  return (await Bun.file(join(ROOT, file)).text()).match(/--max-http-header-size=\d+/g) ?? []
}

describe('request limits', () => {
  test("the app's limits sit below Bun's, so requests between them get the app's JSON errors", () => {
    expect(MAX_BODY_BYTES).toBeLessThan(BUN_MAX_BODY_BYTES)
    expect(MAX_TARGET_BYTES + MAX_HEADER_BYTES).toBeLessThan(BUN_MAX_HEAD_BYTES)
  })

  test('npm start and the compiled binary give Bun the head size of BUN_MAX_HEAD_BYTES', async () => {
    const { scripts } = (await Bun.file(join(ROOT, 'package.json')).json()) as { scripts: Record<string, string> }
    for (const script of ['start', 'build']) expect(scripts[script]).toContain(BUN_HEAD_SIZE_FLAG)
    expect(await headSizeFlags('package.json')).toEqual([BUN_HEAD_SIZE_FLAG, BUN_HEAD_SIZE_FLAG])
  })

  test('the bench starts the service with the same flag, written nowhere as a number of its own', async () => {
    // bench/lib/servers.ts starts every server of a bench run, the service among them.
    const bench = await Bun.file(join(ROOT, 'bench', 'lib', 'servers.ts')).text()
    expect(bench).toContain('BUN_HEAD_SIZE_FLAG')
    for (const file of ['bench/run.ts', 'bench/lib/servers.ts']) expect(await headSizeFlags(file)).toEqual([])
  })

  test('reads sizes as people write them', () => {
    expect([kib(MAX_BODY_BYTES), kib(MAX_TARGET_BYTES), kib(BUN_MAX_BODY_BYTES)]).toEqual(['16 KiB', '8 KiB', '1 MiB'])
  })
})
