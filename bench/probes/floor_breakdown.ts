// Where the gap between raw Bun and the service goes: raw Bun, the Elysia
// floor (the service's bytes through Elysia's `set`, no work), the floor with
// each shape of the service's app added alone (bench/servers/elysia_floor.ts:
// async hook, query schema, more hooks, wrap, own Bun.serve), the floor with
// all of them, and the service, interleaved round by round with wrk and the
// servers' CPU per request, as `--peers` measures (bench/lib/side_by_side.ts).
// What the floor with every shape leaves to the service is its own work.
// On the cold list and create, one more: raw Bun doing the store's work and
// nothing else (bench/servers/baseline_server.ts with BASELINE_PETS: the page read
// with the service's statement, or the pet inserted with the service's group
// commit and durability), the least a Bun server on bun:sqlite spends there.
//
//   bun bench/probes/floor_breakdown.ts [--only "hot list,429 path"] [--rounds 5] [--duration 5] [--pets 20000]
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { recordForReferences } from '../lib/load'
import { canPin, pinSelf } from '../lib/processes'
import { SCENARIOS } from '../lib/scenarios'
import { seedDatabase } from '../lib/seed'
import { BenchServers, type Running } from '../lib/servers'
import { type Contender, measureSideBySide, sideBySideTable } from '../lib/side_by_side'
import { hasWrk } from '../lib/wrk'
import { FLOOR_SHAPES } from '../servers/elysia_floor'

/** The scenarios where SQLite works on every request, and what it does: they get a raw Bun + SQLite row. */
const STORE_WORK: Record<string, string> = { 'cold list': 'raw Bun + SQLite read', create: 'raw Bun + SQLite commit' }
const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'hot list,429 path' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    pets: { type: 'string', default: '20000' },
  },
})
if (!hasWrk) throw new Error('bench/probes/floor_breakdown.ts needs wrk: apt-get install wrk')
const only = (values.only as string).split(',')
const scenarios = SCENARIOS.filter((scenario) => only.includes(scenario.name))
if (scenarios.length !== only.length) throw new Error(`--only names scenarios of: ${SCENARIOS.map((s) => s.name)}`)
const options = {
  rounds: Number(values.rounds),
  duration: Number(values.duration),
  connections: Number(values.connections),
}
const pets = Number(values.pets)

pinSelf()
const root = join(import.meta.dir, '..', '..')
const work = mkdtempSync(join(tmpdir(), 'animal-store-floor-'))
const servers = new BenchServers(root, work)
try {
  const seeded = join(work, 'pets.sqlite')
  const keys = await seedDatabase(seeded, pets)
  copyFileSync(seeded, join(work, 'service.sqlite'))
  const service = await servers.service({ DATABASE_PATH: join(work, 'service.sqlite') })
  const context = { keys, pets }
  const results = []
  for (const scenario of scenarios) {
    // As `--peers` does: the 429 path's Free key banned for as long as the scenario takes.
    const { recorded, keepBanned } = await recordForReferences(service.url, scenario, context)
    const started: Running[] = []
    const floor = async (name: string, shapes: readonly string[]): Promise<Contender> => {
      const running = await servers.floor(recorded, shapes)
      started.push(running)
      return { name, url: running.url, pid: running.pid, kind: 'floor' }
    }
    const baseline = await servers.baseline(recorded)
    started.push(baseline)
    const storeBaseline = async (name: string): Promise<Contender> => {
      // A fresh copy per scenario: the last one's log (-wal) must not meet another file.
      const copy = join(work, `baseline-${scenario.name.replaceAll(' ', '-')}.sqlite`)
      copyFileSync(seeded, copy)
      const running = await servers.baseline(recorded, copy)
      started.push(running)
      return { name, url: running.url, pid: running.pid, kind: 'floor' }
    }
    const storeWork = STORE_WORK[scenario.name]
    try {
      const contenders: Contender[] = [
        { name: 'raw Bun', url: baseline.url, pid: baseline.pid, kind: 'raw' },
        ...(storeWork === undefined ? [] : [await storeBaseline(storeWork)]),
        await floor('Elysia floor', []),
        ...(await Promise.all(FLOOR_SHAPES.map((shape) => floor(`floor + ${shape}`, [shape])))),
        await floor('floor + all five', FLOOR_SHAPES),
        { name: 'Animal Store', url: service.url, pid: service.pid, kind: 'service' },
      ]
      console.error(`floor breakdown: ${scenario.name}, ${options.rounds} rounds`)
      results.push(await measureSideBySide(scenario, contenders, context, { ...options, work, ahead: keepBanned }))
    } finally {
      for (const running of started) await servers.stop(running)
    }
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Bun ${Bun.version}`
  console.log(
    `\n${options.connections} connections, ${options.duration} s per run, ${options.rounds} interleaved rounds, ${canPin ? 'pinned' : 'not pinned'}; ${machine}; ${pets} pets\n`,
  )
  console.log(sideBySideTable(results))
} finally {
  await servers.stopAll()
  rmSync(work, { recursive: true, force: true })
}
