// What checking keys on every request costs, as a share of a whole in-process
// list request, on a WAL database file as the server has it. The key store
// looks at `PRAGMA data_version` at most every DATA_VERSION_CHECK_MS, so that CLI
// revocations and plan changes reach a running server quickly; this bench
// shows what the check costs and what it would cost on every request.
//
//   bun bench/probes/key_lookup.ts [--rounds 5] [--iterations 20000]

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createApp } from '../../src/app'
import { authenticate } from '../../src/auth/authenticate'
import { KnownCredentials } from '../../src/auth/known_credentials'
import { sqliteStores } from '../../src/backends'
import { DATA_VERSION_CHECK_MS } from '../../src/db/data_version'
import { openDatabase } from '../../src/db/sqlite'
import { hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { PLAN_LIMITS } from '../../src/keys/plans'
import { createLogger } from '../../src/log'
import { median, timeInProcess } from '../lib/rounds'

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, iterations: { type: 'string', default: '20000' } },
})
const rounds = Number(values.rounds)
const iterations = Number(values.iterations)

const dir = mkdtempSync(join(tmpdir(), 'animal-store-keys-bench-'))
const db = openDatabase(join(dir, 'bench.sqlite'))
// As backends.ts composes them: one watcher for the key map and the page cache.
const { pets, orders, keys } = sqliteStores(db)
for (let i = 0; i < 1000; i++) await pets.create({ name: `pet ${i}`, categoryId: 1 + (i % 7) })
const { secret } = await issueKey(keys, { name: 'bench', plan: 'free', ...PLAN_LIMITS.free })
const header = `Bearer ${secret}`
const known = new KnownCredentials()
const hash = hashApiKey(secret)
const snapshot = new Map([[hash, keys.findActive(hash)]])
const dataVersion = db.prepare('PRAGMA data_version')
// As the server composes it: the page cache in front of SQLite, no request log lines.
const app = createApp({ pets, orders, keys, logger: createLogger('warn') })
const request = () => new Request('http://localhost/v1/pets?limit=20', { headers: { authorization: header } })

const WHOLE = 'whole request (app.handle, first page of 20)'
const cases: Record<string, () => unknown> = {
  [WHOLE]: () => app.handle(request()),
  [`authenticate, as shipped (data_version every ${DATA_VERSION_CHECK_MS} ms)`]: () =>
    authenticate(header, keys, known),
  'authenticate, header not seen before (bearer parse and SHA-256)': () =>
    authenticate(header, keys, new KnownCredentials()),
  'PRAGMA data_version alone (if checked every request)': () => dataVersion.get(),
  'SHA-256 of the key alone': () => hashApiKey(secret),
  'map lookup alone': () => snapshot.get(hash),
}
// Interleaved rounds, median per case: a noisy machine shifts every case alike.
const samples = await timeInProcess(cases, { rounds, iterations })
const whole = median(samples[WHOLE]!)
console.log(`rounds ${rounds} x ${iterations} iterations; share of one whole in-process request:`)
for (const name of Object.keys(cases))
  console.log(`  ${name.padEnd(58)} ${((median(samples[name]!) / whole) * 100).toFixed(1).padStart(6)} %`)
db.close()
rmSync(dir, { recursive: true, force: true })
