import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { exhaustFreeKey, recordAnswer } from './load'
import { installPeers, PEERS, peerKeys } from './peers'
import { SCENARIOS } from './scenarios'
import { seedDatabase } from './seed'
import type { BenchServers, Running } from './servers'
import {
  type Contender,
  measureSideBySide,
  type SideBySideReport,
  type SideBySideResult,
  sideBySideChart,
  sideBySideTable,
} from './side_by_side'

export const SERVICE_NAME = 'Animal Store'
/** The Elysia app that replays the service's bytes with no work: the least the service could cost in Elysia. */
export const FLOOR_NAME = 'Elysia floor'

/** What `--peers` needs from the bench's command line. */
export interface PeerRunOptions {
  root: string
  work: string
  servers: BenchServers
  pets: number
  rounds: number
  duration: number
  connections: number
  only: string[] | undefined
  machine: string
  pinned: boolean
  command: string
  json: string | undefined
  svg: string | undefined
}

/**
 * `--peers`: every scenario the peers implement, on raw Bun, the Elysia
 * floor, the service and each peer, interleaved round by round, with wrk and autocannon. Prints the
 * table; returns the exit status (1 when any server gave a wrong answer).
 */
export async function comparePeers(options: PeerRunOptions): Promise<number> {
  const { servers, work } = options
  installPeers(options.root)
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
  for (const [i, peer] of PEERS.entries()) {
    const started = await servers.peer(peer, { DATABASE_PATH: copy(`peer-${i}`), PEER_KEYS: peerKeys(keys) })
    peers.push({ name: peer.name, url: started.url, pid: started.pid, kind: 'peer' })
  }
  await exhaustFreeKey(service.url, keys.free)
  const results: SideBySideResult[] = []
  const context = { keys, pets: options.pets }
  for (const scenario of SCENARIOS) {
    if (!scenario.peers || (options.only && !options.only.includes(scenario.name))) continue
    console.error(`bench: ${scenario.name} (${scenario.what}), ${options.rounds} rounds`)
    const recorded = await recordAnswer(service.url, scenario, context)
    const baseline: Running = await servers.baseline(recorded)
    const floor: Running = await servers.floor(recorded)
    try {
      const contenders: Contender[] = [
        { name: 'raw Bun', url: baseline.url, pid: baseline.pid, kind: 'raw' },
        { name: FLOOR_NAME, url: floor.url, pid: floor.pid, kind: 'floor' },
        { name: SERVICE_NAME, url: service.url, pid: service.pid, kind: 'service' },
        ...peers,
      ]
      results.push(await measureSideBySide(scenario, contenders, context, options))
    } finally {
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
  if (options.json) writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`)
  if (options.svg) writeFileSync(options.svg, sideBySideChart(report))
  let wrong = false
  for (const result of results)
    for (const contender of result.contenders)
      if (contender.wrong > 0 || contender.errors > 0) {
        wrong = true
        console.log(
          `WRONG in ${result.scenario} from ${contender.server}: ${contender.wrong} wrong answers, ${contender.errors} errors; first: ${contender.firstWrong ?? '-'}`,
        )
      }
  return wrong ? 1 : 0
}

function wrkVersion(): string {
  const output = Bun.spawnSync(['wrk', '-v']).stdout.toString()
  return /wrk (\S+)/.exec(output)?.[1] ?? ''
}
