// What SQLITE_SYNCHRONOUS=full costs a create, against the default normal:
// POST /v1/pets through the whole app in-process, on a database file in a
// temporary folder, interleaved rounds, median per mode, reported as a ratio;
// once with one create at a time, once with 50 in flight (as under load, where
// creates are committed in groups and share each commit's fsync).
//
//   bun bench/probes/durability_cost.ts [--rounds 5] [--creates 500]

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createApp } from '../../src/app'
import { sqliteStores } from '../../src/backends'
import type { Synchronous } from '../../src/config'
import { openDatabase } from '../../src/db/sqlite'
import { issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import { createLogger } from '../../src/log'
import { median } from '../lib/rounds'

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, creates: { type: 'string', default: '500' } },
})
const rounds = Number(values.rounds)
const creates = Number(values.creates)
const dir = mkdtempSync(join(tmpdir(), 'animal-store-durability-'))

async function setUp(mode: Synchronous) {
  const db = openDatabase(join(dir, `${mode}.sqlite`), { synchronous: mode })
  const keys = new SqliteKeyStore(db)
  const { secret } = await issueKey(keys, { name: 'bench', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
  const { pets, orders } = sqliteStores(db)
  const app = createApp({ pets, orders, keys, logger: createLogger('silent') })
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }
  const create = async (i: number) => {
    const response = await app.handle(
      new Request('http://localhost/v1/pets', { method: 'POST', headers, body: `{"name":"pet ${i}","categoryId":1}` }),
    )
    if (response.status !== 201) throw new Error(`create answered ${response.status}`)
  }
  return async (inFlight: number) => {
    const start = Bun.nanoseconds()
    for (let i = 0; i < creates; i += inFlight)
      await Promise.all(Array.from({ length: inFlight }, (_, j) => create(i + j)))
    return (Bun.nanoseconds() - start) / creates
  }
}

try {
  const modes: Synchronous[] = ['normal', 'full']
  const runs = { normal: await setUp('normal'), full: await setUp('full') }
  console.log(`${rounds} interleaved rounds of ${creates} creates each, median per mode:`)
  for (const inFlight of [1, 50]) {
    const samples: Record<Synchronous, number[]> = { normal: [], full: [] }
    for (let round = 0; round < rounds; round++)
      for (const mode of modes) samples[mode].push(await runs[mode](inFlight))
    const normal = median(samples.normal)
    const full = median(samples.full)
    console.log(
      `  ${String(inFlight).padStart(2)} in flight: synchronous=full takes ${(full / normal).toFixed(1)}x the time of normal per create` +
        ` (creates per second with full: ${((normal / full) * 100).toFixed(0)} % of normal)`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
