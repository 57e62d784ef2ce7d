// What three processes sharing one CPU cost against one alone, with no Redis
// and no PostgreSQL: the service on SQLite + memory (each process its own
// limiter and page cache, on one file) and raw Bun answering the hot list's
// recorded bytes (bench/servers/baseline_server.ts), one process against three,
// all on CPU 0, the 50 connections of wrk (CPU 1) split evenly over them, as
// `--scale-out` drives its three instances. The hot list, so each process's
// limiter is never hit (the bench's unlimited key). The figure is the CPU of
// the processes summed over the requests all of them served, interleaved
// rounds: what `--scale-out`'s three instances pay for sharing a core
// whatever they share (bench/README.md, "One instance or three").
//
//   bun bench/probes/sharing_one_core.ts [--rounds 7] [--seconds 3]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { recordAnswer } from '../lib/load'
import { cpuSeconds, pinSelf } from '../lib/processes'
import { spread } from '../lib/rounds'
import { SCENARIOS } from '../lib/scenarios'
import { seedDatabase } from '../lib/seed'
import { BenchServers, type Running } from '../lib/servers'
import { runWrk, wrkScript } from '../lib/wrk'

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '7' }, seconds: { type: 'string', default: '3' } },
})
const CONNECTIONS = 50
const PETS = 1000
const work = mkdtempSync(join(tmpdir(), 'sharing-one-core-'))
const servers = new BenchServers(join(import.meta.dir, '..', '..'), work)
pinSelf()
try {
  const path = join(work, 'pets.sqlite')
  const keys = await seedDatabase(path, PETS)
  const context = { keys, pets: PETS }
  const hotList = SCENARIOS.find((scenario) => scenario.name === 'hot list')!
  const script = wrkScript(hotList, context)
  const services: Running[] = []
  for (let i = 0; i < 3; i++) services.push(await servers.service({ DATABASE_PATH: path }))
  const recorded = await recordAnswer(services[0]!.url, hotList, context)
  const raw: Running[] = []
  for (let i = 0; i < 3; i++) raw.push(await servers.baseline(recorded))
  const setups = {
    'service, 1 process': services.slice(0, 1),
    'service, 3 processes': services,
    'raw Bun, 1 process': raw.slice(0, 1),
    'raw Bun, 3 processes': raw,
  }
  const names = Object.keys(setups) as (keyof typeof setups)[]
  const drive = (instances: Running[], seconds: number) =>
    Promise.all(
      instances.map((instance, i) => {
        const dir = join(work, `wrk-${i}`)
        mkdirSync(dir, { recursive: true })
        return runWrk(script, instance.url, {
          connections: Math.round(CONNECTIONS / instances.length),
          duration: seconds,
          work: dir,
        })
      }),
    )
  for (const name of names) await drive(setups[name], 2)
  const micros = Object.fromEntries(names.map((name) => [name, [] as number[]]))
  for (let round = 0; round < Number(values.rounds); round++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!
      const instances = setups[name]
      const before = instances.reduce((total, instance) => total + cpuSeconds(instance.pid), 0)
      const runs = await drive(instances, Number(values.seconds))
      const after = instances.reduce((total, instance) => total + cpuSeconds(instance.pid), 0)
      micros[name]!.push(((after - before) * 1e6) / runs.reduce((total, run) => total + run.requests, 0))
    }
  console.log(`Hot list, CPU µs per request of the processes together, median [min–max] of ${values.rounds} rounds:`)
  for (const name of names) console.log(`  ${name.padEnd(22)} ${spread(micros[name]!, 1)}`)
  const ratios = (three: string, one: string) => micros[three]!.map((value, round) => value / micros[one]![round]!)
  console.log(`Three over one, round by round: service ${spread(ratios('service, 3 processes', 'service, 1 process'))}`)
  console.log(`                                raw Bun ${spread(ratios('raw Bun, 3 processes', 'raw Bun, 1 process'))}`)
} finally {
  await servers.stopAll()
  rmSync(work, { recursive: true, force: true })
}
