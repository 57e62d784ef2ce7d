// The costs that comments in src/ give as reasons, measured: each comment
// points to the bench/README.md section this prints ("The costs behind the
// code's choices"), so the figure lives there only.
//   data_version     `PRAGMA data_version` on a WAL file (db/data_version.ts asks it only when the WAL-index moved)
//   wal-index pread  reading the 48-byte WAL-index header from the -shm file (db/data_version.ts, every list read)
//   key hash         parsing a bearer header, checking and hashing its key (auth/known_credentials.ts: once per header)
//   page gzip / br   a 100-pet page at the service's `fast` effort (http/compression.ts)
//   quick_check      `PRAGMA quick_check` per MB of database file (db/sqlite.ts runs it once, at open)
//   Redis            one round trip of the limiter's consume script, with REDIS_URL set (ratelimit/redis_connection.ts)
//
//   bun bench/probes/code_figures.ts [--rounds 5] [--pets 100000]
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { RedisClient } from 'bun'
import { firstIntegrityProblem, openDatabase } from '../../src/db/sqlite'
import { closeDatabase } from '../../src/db/wal_ownership'
import { compressSync } from '../../src/http/compression'
import { isWellFormedApiKey } from '../../src/key_shape'
import { bearerToken, generateApiKey, hashApiKey } from '../../src/keys/api_key'
import { REDIS_SCRIPTS } from '../../src/ratelimit/redis_scripts'
import { spread, timeInProcess } from '../lib/rounds'
import { seedDatabase } from '../lib/seed'

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, pets: { type: 'string', default: '100000' } },
})
const ROUNDS = Number(values.rounds)
const PETS = Number(values.pets)
const dir = mkdtempSync(join(tmpdir(), 'code-figures-'))

try {
  const path = join(dir, 'pets.sqlite')
  await seedDatabase(path, PETS)
  const db = openDatabase(path)
  const dataVersion = db.prepare('PRAGMA data_version')
  const shm = openSync(`${path}-shm`, 'r')
  const walIndexHeader = new Uint8Array(48)
  const header = `Bearer ${generateApiKey()}`
  const page = new TextEncoder().encode(
    JSON.stringify(db.query('SELECT id, name, category_id AS categoryId, status FROM pets LIMIT 100').all()),
  )
  const inProcess = await timeInProcess(
    {
      data_version: () => dataVersion.get(),
      'wal-index pread': () => readSync(shm, walIndexHeader, 0, walIndexHeader.length, 0),
      'key hash': () => {
        const token = bearerToken(header) as string
        return isWellFormedApiKey(token) && hashApiKey(token)
      },
      'page gzip': () => compressSync(page, 'gzip', 'fast'),
      'page br': () => compressSync(page, 'br', 'fast'),
    },
    { rounds: ROUNDS, iterations: 2_000 },
  )
  console.log(`in process, µs per call, median [min–max] of ${ROUNDS} rounds (the page: ${page.byteLength} bytes)`)
  for (const [name, samples] of Object.entries(inProcess)) console.log(`  ${name.padEnd(14)} ${spread(samples)}`)

  const megabytes = statSync(path).size / 1024 / 1024
  const checks: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now()
    if (firstIntegrityProblem(db) !== undefined) throw new Error('the seeded file is damaged')
    checks.push(performance.now() - start)
  }
  console.log(`quick_check of ${PETS} pets (${megabytes.toFixed(1)} MB): ${spread(checks)} ms,`)
  console.log(`  ${spread(checks.map((ms) => ms / megabytes))} ms per MB`)
  dataVersion.finalize()
  closeDatabase(db)
  // After the database: closing a descriptor of the -shm file drops this process's locks on it.
  closeSync(shm)

  if (process.env.REDIS_URL) {
    const redis = new RedisClient(process.env.REDIS_URL)
    await redis.connect()
    const { sha, source } = REDIS_SCRIPTS.consume
    await redis.send('SCRIPT', ['LOAD', source])
    const trips: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now()
      for (let i = 0; i < 1_000; i++) {
        const now = String(Date.now())
        const keys = [
          'code-figures:{1}:ban',
          'code-figures:{1}:m',
          'code-figures:{1}:d',
          'code-figures:{1}:r',
          'code-figures:v',
        ]
        await redis.send('EVALSHA', [sha, '5', ...keys, '1000000', '1000000', now, now, now, '1', '1'])
      }
      trips.push((performance.now() - start) / 1_000)
    }
    await redis.send('DEL', [
      'code-figures:{1}:ban',
      'code-figures:{1}:m',
      'code-figures:{1}:d',
      'code-figures:{1}:r',
      'code-figures:v',
    ])
    redis.close()
    console.log(`Redis consume script, one at a time: ${spread(trips, 3)} ms per round trip`)
  } else {
    console.log('Redis: not measured (set REDIS_URL)')
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
