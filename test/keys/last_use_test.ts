import { describe, expect, test } from 'bun:test'
import { LastUseRecorder } from '../../src/keys/last_use'
import type { ApiKey } from '../../src/keys/store'
import { createLogger } from '../../src/log'

const T0 = Date.parse('2026-11-23T14:05:10.000Z')
const key = (id: number) => ({ id }) as ApiKey

function recorder(fail = false) {
  const writes: [number[], string][] = []
  const logs: Record<string, unknown>[] = []
  const keys = {
    async recordUse(ids: readonly number[], minute: string) {
      if (fail) throw new Error('database is locked')
      writes.push([[...ids], minute])
    },
  }
  const lastUse = new LastUseRecorder(
    keys,
    createLogger('info', (line) => logs.push(JSON.parse(line))),
  )
  return { lastUse, writes, logs }
}

describe('LastUseRecorder', () => {
  test("writes a key's first use in each clock minute, once, batched after the tick", async () => {
    const { lastUse, writes } = recorder()
    for (let i = 0; i < 1000; i++) lastUse.note(key(1 + (i % 3)), T0 + i)
    // Nothing written while the requests run.
    expect(writes).toEqual([])
    await lastUse.flush()
    expect(writes).toEqual([[[1, 2, 3], '2026-11-23T14:05:00.000Z']])
    lastUse.note(key(1), T0 + 40_000)
    lastUse.note(key(1), T0 + 50_000)
    lastUse.note(key(2), T0 + 49_999)
    await lastUse.flush()
    expect(writes).toHaveLength(2)
    expect(writes[1]).toEqual([[1], '2026-11-23T14:06:00.000Z'])
  })

  test('a failed write is logged, and the next minute writes again', async () => {
    const { lastUse, logs } = recorder(true)
    lastUse.note(key(1), T0)
    await lastUse.flush()
    expect(logs).toMatchObject([{ level: 'warn', msg: 'could not record when keys were last used', keys: 1 }])
  })
})
