import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { recordForReferences } from './load'
import { installPeers, PEERS, peerKeys } from './peers'
import { finishRun } from './report'
import { SCENARIOS, type StoreReference } from './scenarios'
import { seedDatabase } from './seed'
import type { BenchServers, Running } from './servers'
import {
  type Contender,
  measureSideBySide,
  referenceMultiple,
  referenceTable,
  type SideBySideReport,
  type SideBySideResult,
  sideBySideChart,
  sideBySideTable,
} from './side_by_side'

export const SERVICE_NAME = 'Animal Store'
/** The Elysia app that replays the service's bytes with no work: the least the service could cost in Elysia. */
export const FLOOR_NAME = 'Elysia floor'
/** Raw Bun doing only a scenario's store work (bench/servers/baseline_server.ts with BASELINE_PETS), by the work. */
export const STORE_WORK_NAMES: Record<Exclude<StoreReference, 'floor'>, string> = {
  read: 'raw Bun + SQLite read',
  commit: 'raw Bun + SQLite commit',
  update: 'raw Bun + SQLite update',
}

/** What `--peers` needs from the bench's command line. */
export interface PeerRunOptions {
  root: string
  work: string
  servers: BenchServers
  pets: number
  rounds: number
  duration: number
  connections: number
  /** Whether the peers run too (`--peers`); without them (`--floors`), the service against its references only. */
  withPeers: boolean
  only: string[] | undefined
  machine: string
  pinned: boolean
  command: string
  json: string | undefined
  svg: string | undefined
}

/**
 * `--peers`: every scenario the peers implement or that has a reference, on
 * raw Bun, the Elysia floor, raw Bun doing the scenario's store work (where
 * its reference is one), the service and each peer (where they implement
 * it), interleaved round by round, with wrk and autocannon; `--floors`: the
 * same without the peers. Prints the tables; returns the exit status (1 when
 * any server gave a wrong answer).
 */
export async function comparePeers(options: PeerRunOptions): Promise<number> {
  const { servers, work } = options
  if (options.withPeers) installPeers(options.root)
  console.error(`bench: seeding ${options.pets.toLocaleString('en')} pets, one copy per server`)
  const seeded = join(work, 'pets.sqlite')
  const keys = await seedDatabase(seeded, options.pets)
  const copy = (name: string) => {
    const path = join(work, `${name}.sqlite`)
    copyFileSync(seeded, path)
    return path
  }
  const service = await servers.service({ DATABASE_PATH: copy('service') })
  const peers: Contender[] = []
  for (const [i, peer] of (options.withPeers ? PEERS : []).entries()) {
    const started = await servers.peer(peer, { DATABASE_PATH: copy(`peer-${i}`), PEER_KEYS: peerKeys(keys) })
    peers.push({ name: peer.name, url: started.url, pid: started.pid, kind: 'peer' })
  }
  const results: SideBySideResult[] = []
  const context = { keys, pets: options.pets }
  for (const scenario of SCENARIOS) {
    const measured = (options.withPeers && scenario.peers) || scenario.reference !== undefined
    if (!measured || (options.only && !options.only.includes(scenario.name))) continue
    console.error(`bench: ${scenario.name} (${scenario.what}), ${options.rounds} rounds`)
    // The 429 path's Free key banned now, and again before any round its ban would not outlast, however long the
    // scenarios before it took: an answer recorded after the ban ended would be a 200 for the references to replay.
    const { recorded, keepBanned } = await recordForReferences(service.url, scenario, context)
    const baseline: Running = await servers.baseline(recorded)
    const floor: Running = await servers.floor(recorded)
    const work = scenario.reference?.of ?? 'floor'
    // Raw Bun doing the store work, on its own copy of the pets as each peer has: one's writes do not change what
    // another reads.
    const storeWork =
      work === 'floor'
        ? undefined
        : { name: STORE_WORK_NAMES[work], running: await servers.baseline(recorded, copy(`store-${work}`)) }
    try {
      const contenders: Contender[] = [
        { name: 'raw Bun', url: baseline.url, pid: baseline.pid, kind: 'raw' },
        { name: FLOOR_NAME, url: floor.url, pid: floor.pid, kind: 'floor' },
        ...(storeWork === undefined
          ? []
          : [{ name: storeWork.name, url: storeWork.running.url, pid: storeWork.running.pid, kind: 'floor' as const }]),
        { name: SERVICE_NAME, url: service.url, pid: service.pid, kind: 'service' },
        ...(scenario.peers ? peers : []),
      ]
      const result = await measureSideBySide(scenario, contenders, context, { ...options, ahead: keepBanned })
      if (scenario.reference !== undefined)
        result.reference = referenceMultiple(
          result,
          SERVICE_NAME,
          storeWork?.name ?? FLOOR_NAME,
          scenario.reference.target,
        )
      results.push(result)
    } finally {
      if (storeWork !== undefined) await servers.stop(storeWork.running)
      await servers.stop(floor)
      await servers.stop(baseline)
    }
    console.error(sideBySideTable(results.slice(-1)))
  }
  const report: SideBySideReport = {
    date: new Date().toISOString(),
    command: options.command,
    machine: options.machine,
    pinned: options.pinned,
    generators: `wrk ${wrkVersion()} and autocannon ${(await import('autocannon/package.json')).version}`,
    connections: options.connections,
    duration: options.duration,
    rounds: options.rounds,
    pets: options.pets,
    service: SERVICE_NAME,
    results,
  }
  console.log(
    `\n${report.generators}, ${report.connections} connections, ${report.duration} s per run, ${report.rounds} interleaved rounds, ${report.pinned ? 'pinned' : 'not pinned'}; ${report.machine}\n`,
  )
  console.log(sideBySideTable(results))
  console.log(`\nThe service's server CPU per request as a multiple of its reference's, in the same rounds:\n`)
  console.log(referenceTable(results))
  return finishRun(
    report,
    () => sideBySideChart(report),
    options,
    results.flatMap((result) => result.contenders.map((c) => ({ ...c, scenario: result.scenario }))),
  )
}

function wrkVersion(): string {
  const output = Bun.spawnSync(['wrk', '-v']).stdout.toString()
  return /wrk (\S+)/.exec(output)?.[1] ?? ''
}
