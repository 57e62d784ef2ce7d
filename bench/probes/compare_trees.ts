// What a change costs on the hot list (a cached first page), measured by two
// lenses that do not depend on autocannon. The two trees are interleaved
// round by round:
//   in process: both trees' apps in this one process, `app.handle` in a
//               loop, µs per request;
//   cpu:        each tree's `serve` pinned to CPU 0, wrk on CPU 1, the
//               server's user + system CPU time (/proc/<pid>/stat) per request.
// Make the "before" tree with `git worktree add --detach /tmp/before <rev>`
// and link node_modules into it.
//
//   bun bench/probes/compare_trees.ts --before /tmp/before [--after .] [--rounds 7] [--iterations 50000] [--seconds 5]
//                              [--scenario 429]                       (the 429 path: a banned Free key, not the hot list)
//                              [--scenario cold-list] [--pets 100000]  (a random page SQLite reads every time, of
//                                                                      that many pets, each tree's seeded by its
//                                                                      own bench/lib/seed.ts, so trees whose
//                                                                      schemas differ compare)
//                              [--scenario create]                     (the bench's create: a POST of one pet,
//                                                                      committed before its 201)
//                              [--header 'Accept-Encoding: gzip']...   (sent with every request)
//                              [--after-env ADMIN_PORT=0]...           (set for the after tree's server only;
//                              with --before and --after the same tree, it measures what a setting costs)
//                              [--shared]                              (the servers on PostgreSQL + Redis, started
//                              with .ci/services on CPU 1 and seeded with --pets pets; the in-process lens stays on
//                              SQLite + memory)
//                              [--shared --instances 3]                (each tree as that many instances sharing them,
//                              all on CPU 0, wrk's 50 connections split evenly as the scale-out bench splits them;
//                              CPU summed over the instances, per request all of them served)
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { cpuSeconds, spawnPinned } from '../lib/processes'
import { median } from '../lib/rounds'
import { connectionShare } from '../lib/scale_out'
import { SCENARIOS } from '../lib/scenarios'
import { seedPostgres } from '../lib/seed'
import { startSharedServices, stopSharedServices } from '../lib/shared_services'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: join(import.meta.dir, '..', '..') },
    rounds: { type: 'string', default: '7' },
    iterations: { type: 'string', default: '50000' },
    seconds: { type: 'string', default: '5' },
    header: { type: 'string', multiple: true, default: [] },
    'after-env': { type: 'string', multiple: true, default: [] },
    scenario: { type: 'string', default: 'hot-list' },
    pets: { type: 'string', default: '100000' },
    shared: { type: 'boolean', default: false },
    instances: { type: 'string', default: '1' },
  },
})
if (!['hot-list', '429', 'cold-list', 'create'].includes(values.scenario))
  throw new Error('--scenario is hot-list, 429, cold-list or create')
/** The 429 path: every request from a Free key that is over its limit and banned, as the bench's scenario. */
const REFUSED = values.scenario === '429'
/** What a Free key is driven with first: its minute, then enough refusals to be banned. */
const EXHAUST = 200
/** Create: the bench's create scenario's request (a POST of one pet), with the tree's unlimited key. */
const CREATE = values.scenario === 'create'
const CREATE_BODY = '{"name":"Bench","categoryId":3}'
const EXPECTED_STATUS = REFUSED ? 429 : CREATE ? 201 : 200
/** The cold list: `limit=20&after=<random>` on a copy of PETS pets seeded by each tree (seededFor), with its unlimited key. */
const COLD = values.scenario === 'cold-list'
const PETS = Number(values.pets)
const seededDir = COLD ? mkdtempSync(join(tmpdir(), 'compare-trees-seed-')) : ''
/** Each tree's seeded pets and unlimited key, by root. */
const seededTrees = new Map<string, { file: string; unlimited: string }>()
/**
 * The pets `root` is measured on, seeded once by the tree's own bench/lib/seed.ts: a tree opens only a schema
 * it knows, and one seeded by the other tree and upgraded at start would not be laid out as a file that tree
 * made itself.
 */
async function seededFor(root: string): Promise<{ file: string; unlimited: string }> {
  const kept = seededTrees.get(root)
  if (kept !== undefined) return kept
  const { seedDatabase } = (await import(join(root, 'bench', 'lib', 'seed.ts'))) as typeof import('../lib/seed')
  const file = join(seededDir, `pets-${seededTrees.size}.sqlite`)
  const seeded = { file, unlimited: (await seedDatabase(file, PETS)).unlimited }
  seededTrees.set(root, seeded)
  return seeded
}
/** A copy of `root`'s seeded pets, one per server or app, so that none shares another's file. */
function seededCopy(seeded: { file: string }): string {
  const file = join(mkdtempSync(join(tmpdir(), 'compare-trees-')), 'store.sqlite')
  copyFileSync(seeded.file, file)
  return file
}
/** With --shared: PostgreSQL + Redis for both trees' servers, seeded once with PETS pets and the bench's keys. */
const SHARED = values.shared
/** With --shared: how many instances of each tree serve at once, sharing PostgreSQL + Redis. */
const INSTANCES = Number(values.instances)
if (!Number.isInteger(INSTANCES) || INSTANCES < 1) throw new Error('--instances is a whole number, 1 or more')
if (INSTANCES > 1 && !SHARED)
  throw new Error('--instances above 1 needs --shared: the instances share PostgreSQL + Redis')
/** wrk's connections, split evenly over the instances. */
const CONNECTIONS = 50
const sharedDir = SHARED ? mkdtempSync(join(tmpdir(), 'compare-trees-services-')) : ''
const shared = SHARED ? await startAndSeed() : undefined
async function startAndSeed() {
  const urls = startSharedServices(sharedDir, 1)
  const seededPostgres = await seedPostgres(urls.DATABASE_URL!, 'compare_trees', PETS)
  return { env: { DATABASE_URL: seededPostgres.url, REDIS_URL: urls.REDIS_URL! }, keys: seededPostgres.keys }
}
const randomAfter = () => Math.floor(Math.random() * (PETS - 21))
/** The path each request asks for: the first page, or a random one on the cold list. */
const listPath = () => (COLD ? `/v1/pets?limit=20&after=${randomAfter()}` : '/v1/pets')
if (values.before === undefined) throw new Error('--before DIR is required (a checkout of the tree to compare with)')
const TREES = { before: resolve(values.before), after: resolve(values.after) }
const ROUNDS = Number(values.rounds)
const ITERATIONS = Number(values.iterations)
// Shorter timed runs, more rounds: slow drifts of a shared machine cancel out within each pair.
const SECONDS = Number(values.seconds)
const BUN = process.execPath
const AFTER_ENV = Object.fromEntries(
  (values['after-env'] as string[]).map((setting) => {
    const equals = setting.indexOf('=')
    if (equals < 1) throw new Error(`--after-env "${setting}" must be NAME=VALUE`)
    return [setting.slice(0, equals), setting.slice(equals + 1)]
  }),
)
const HEADERS = (values.header as string[]).map((header) => {
  const colon = header.indexOf(':')
  if (colon < 1) throw new Error(`--header "${header}" must be "Name: value"`)
  return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()] as [string, string]
})

type Tree = keyof typeof TREES
const spread = (xs: number[]) =>
  `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)})`

/** Runs `measure` for both trees, alternating which goes first, and prints medians and per-round ratios. */
async function interleaved(lens: string, measure: Record<Tree, () => Promise<number>>) {
  const seen: Record<Tree, number[]> = { before: [], after: [] }
  for (let round = 0; round < ROUNDS; round++)
    for (const tree of (round % 2 ? ['after', 'before'] : ['before', 'after']) as Tree[])
      seen[tree].push(await measure[tree]())
  const ratios = seen.after.map((after, i) => after / seen.before[i]!)
  console.log(
    `${lens}: before ${spread(seen.before)} µs, after ${spread(seen.after)} µs, after/before ${spread(ratios)}`,
  )
}

async function inProcess(root: string): Promise<() => Promise<number>> {
  const { createApp } = await import(`${root}/src/app.ts`)
  const { openDatabase } = await import(`${root}/src/db/sqlite.ts`)
  const { DataVersionWatcher } = await import(`${root}/src/db/data_version.ts`)
  const { SqliteKeyStore } = await import(`${root}/src/keys/sqlite_store.ts`)
  const { CachedPetStore } = await import(`${root}/src/pets/page_cache.ts`)
  const { SqlitePetStore } = await import(`${root}/src/pets/sqlite_store.ts`)
  const { issueKey } = await import(`${root}/src/keys/issue.ts`)
  const { createLogger } = await import(`${root}/src/log.ts`)
  const { sqliteStores } = await import(`${root}/src/backends.ts`)
  const seeded = COLD ? await seededFor(root) : undefined
  const db = openDatabase(seeded ? seededCopy(seeded) : ':memory:')
  // As each tree composes its stores: since the orders, backends.ts does it (and adds the order store).
  const composed = sqliteStores ? sqliteStores(db) : undefined
  const watcher = composed?.watcher ?? new DataVersionWatcher(db)
  const pets = composed?.pets ?? new CachedPetStore(new SqlitePetStore(db), watcher)
  const keys = composed?.keys ?? new SqliteKeyStore(db, { watcher })
  const unlimited = await issueKey(keys, { name: 'bench', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
  const free = await issueKey(keys, { name: 'free', plan: 'free', rpm: 60, rpd: 1000 })
  const secret = seeded ? seeded.unlimited : REFUSED ? free.secret : unlimited.secret
  if (!COLD) for (let i = 0; i < 30; i++) await pets.create({ name: `pet ${i}`, categoryId: 1, status: 'available' })
  const app = createApp({
    pets,
    orders: composed?.orders,
    keys,
    logger: createLogger('silent'),
    socketAddress: () => '127.0.0.1',
  })
  if (REFUSED)
    for (let i = 0; i < EXHAUST; i++)
      await app.handle(new Request('http://localhost/v1/pets', { headers: { authorization: `Bearer ${secret}` } }))
  return async () => {
    const start = Bun.nanoseconds()
    for (let i = 0; i < ITERATIONS; i++) {
      const headers: [string, string][] = [...HEADERS, ['authorization', `Bearer ${secret}`]]
      const response = await app.handle(
        CREATE
          ? new Request('http://localhost/v1/pets', {
              method: 'POST',
              body: CREATE_BODY,
              // With its length, as wrk sends it: without one, the body would be read as a chunked upload is.
              headers: [
                ...headers,
                ['content-type', 'application/json'],
                ['content-length', String(CREATE_BODY.length)],
              ],
            })
          : new Request(`http://localhost${listPath()}`, { headers }),
      )
      if (response.status !== EXPECTED_STATUS) throw new Error(`status ${response.status}`)
      await response.arrayBuffer()
    }
    return (Bun.nanoseconds() - start) / ITERATIONS / 1000
  }
}

/** For the cold list: the bench's own Lua for its scenario, which has wrk ask for a random page each time. */
const COLD_SCRIPT = join(seededDir, 'cold.lua')
if (COLD) {
  const coldList = SCENARIOS.find((scenario) => scenario.name === 'cold list')!
  // The key is sent as a header (wrk below), so the script is the same for both trees.
  writeFileSync(COLD_SCRIPT, coldList.wrkRequest!({ keys: { unlimited: '', free: '' }, pets: PETS }))
}
/** For create: wrk's static request made a POST of the body. */
const CREATE_SCRIPT = CREATE ? join(mkdtempSync(join(tmpdir(), 'compare-trees-create-')), 'create.lua') : ''
if (CREATE)
  writeFileSync(
    CREATE_SCRIPT,
    [
      'wrk.method = "POST"',
      `wrk.body = ${JSON.stringify(CREATE_BODY)}`,
      'wrk.headers["Content-Type"] = "application/json"',
    ].join('\n'),
  )

async function wrk(url: string, key: string, seconds: number, connections = CONNECTIONS): Promise<number> {
  const headers = [
    ...HEADERS.flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(COLD ? ['-s', COLD_SCRIPT] : []),
    ...(CREATE ? ['-s', CREATE_SCRIPT] : []),
  ]
  const args = [
    'taskset',
    '-c',
    '1',
    'wrk',
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    ...headers,
    '-H',
    `Authorization: Bearer ${key}`,
    url,
  ]
  const output = await new Response(Bun.spawn(args, { stdout: 'pipe' }).stdout).text()
  const requests = Number(/(\d+) requests in/.exec(output)![1])
  // Every answer of the 429 path is a refusal; of the hot list, none is.
  const refused = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0)
  if (refused !== (REFUSED ? requests : 0)) throw new Error(`wrong answers:\n${output}`)
  return requests
}

/** A pinned `serve` of `root` on a fresh database with 25 pets and an unlimited key; measures CPU per request. */
async function served(root: string, port: number, stops: (() => void)[], extraEnv: Record<string, string> = {}) {
  if (shared !== undefined) return servedShared(root, port, stops, extraEnv)
  const seeded = COLD ? await seededFor(root) : undefined
  const db = seeded ? seededCopy(seeded) : join(mkdtempSync(join(tmpdir(), 'compare-trees-')), 'store.sqlite')
  const created = Bun.spawnSync(
    [
      BUN,
      'src/main.ts',
      'keys',
      'create',
      '--plan',
      'enterprise',
      '--rpm',
      '1000000000',
      '--rpd',
      '1000000000',
      '--db',
      db,
    ],
    { cwd: root },
  )
  const unlimited = created.stdout.toString().trim()
  const free = Bun.spawnSync([BUN, 'src/main.ts', 'keys', 'create', '--plan', 'free', '--db', db], { cwd: root })
  const key = seeded ? seeded.unlimited : REFUSED ? free.stdout.toString().trim() : unlimited
  const { pid, base } = await started(root, port, stops, { DATABASE_PATH: db, ...extraEnv })
  for (let i = 0; i < 25; i++)
    await fetch(`${base}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${unlimited}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `pet ${i}`, categoryId: 1 }),
    })
  return measured([pid], [base], key)
}

/**
 * `serve` of `root` pinned to CPU 0 on `port` with `env`, once it says it listens; stopped by `stops`. A server
 * that exits or stays silent for a minute is an error with its output, not a wrk run against nothing.
 */
async function started(root: string, port: number, stops: (() => void)[], env: Record<string, string>) {
  const server = await spawnPinned(
    [BUN, join(root, 'src', 'main.ts'), 'serve'],
    { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    /listening on http:\/\//,
  )
  stops.push(() => server.proc.kill())
  return { pid: server.pid, base: `http://127.0.0.1:${port}` }
}

/**
 * The scenario's measurement of the servers `pids` at `bases` (one tree's instances) with `key`, the Free key
 * banned first on the 429 path (through the first: instances share their limits): their CPU summed, per request
 * all of them served, each driven by its share of the connections at once.
 */
async function measured(pids: number[], bases: string[], key: string): Promise<() => Promise<number>> {
  const urls = bases.map((base) => (CREATE ? `${base}/v1/pets` : `${base}/v1/pets?limit=20`))
  if (REFUSED)
    for (let i = 0; i < EXHAUST; i++)
      await (await fetch(urls[0]!, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer()
  const share = connectionShare(CONNECTIONS, urls.length)
  const everyInstance = async (seconds: number) =>
    (await Promise.all(urls.map((url) => wrk(url, key, seconds, share)))).reduce((sum, n) => sum + n, 0)
  const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  return async () => {
    await everyInstance(2)
    const before = cpu()
    const requests = await everyInstance(SECONDS)
    return ((cpu() - before) / requests) * 1e6
  }
}

/**
 * INSTANCES pinned `serve`s of `root` on the seeded PostgreSQL + Redis, with their keys, on `port` and every
 * second port after it (the other tree takes the ports between); measures CPU per request.
 */
async function servedShared(root: string, port: number, stops: (() => void)[], extraEnv: Record<string, string>) {
  const instances = []
  for (let i = 0; i < INSTANCES; i++)
    instances.push(await started(root, port + 2 * i, stops, { ...shared!.env, ...extraEnv }))
  const key = REFUSED ? shared!.keys.free : shared!.keys.unlimited
  return measured(
    instances.map(({ pid }) => pid),
    instances.map(({ base }) => base),
    key,
  )
}

await interleaved('in process, µs per request', {
  before: await inProcess(TREES.before),
  after: await inProcess(TREES.after),
})
const stops: (() => void)[] = []
try {
  await interleaved('server CPU per request (wrk)', {
    before: await served(TREES.before, 47100, stops),
    after: await served(TREES.after, 47101, stops, AFTER_ENV),
  })
} finally {
  for (const stop of stops) stop()
  if (SHARED) stopSharedServices(sharedDir)
}
