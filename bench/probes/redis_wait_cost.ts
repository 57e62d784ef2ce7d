// What an answer that waits for Redis costs raw Bun, apart from any framework:
// the same bytes answered as a Response, as a promise of one (a microtask),
// after one Redis GET each, and after one GET each sent with the other calls
// of the same event-loop turn (at setImmediate, as src/ratelimit/redis_connection.ts
// sends). Each server pinned to CPU 0, wrk on CPU 1, interleaved rounds; the
// server's CPU per request from /proc.
//
//   REDIS_URL=redis://127.0.0.1:6379 bun bench/probes/redis_wait_cost.ts [--rounds 5] [--seconds 3]
import { parseArgs } from 'node:util'
import { cpuSeconds } from '../lib/processes'
import { spread } from '../lib/rounds'

const MODES = ['sync', 'promise', 'redis', 'batched'] as const
type Mode = (typeof MODES)[number]

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '3' } },
  allowPositionals: true,
})
const url = process.env.REDIS_URL
if (url === undefined) throw new Error('set REDIS_URL to a Redis this probe may send GETs to')

if (positionals[0] !== undefined) await serve(positionals[0] as Mode, url)
else await compare(Number(values.rounds), Number(values.seconds))

/** One server answering every request in `mode`. */
async function serve(mode: Mode, redisUrl: string) {
  const redis = new Bun.RedisClient(redisUrl)
  await redis.connect()
  let batch: (() => void)[] = []
  const sendBatch = () => {
    const calls = batch
    batch = []
    for (const send of calls) send()
  }
  const batchedGet = () =>
    new Promise<unknown>((resolve, reject) => {
      if (batch.length === 0) setImmediate(sendBatch)
      batch.push(() => {
        redis.send('GET', ['probe']).then(resolve, reject)
      })
    })
  const body = JSON.stringify(
    Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `pet ${i + 1}`, categoryId: 1, status: 'available' })),
  )
  const headers = { 'content-type': 'application/json', etag: '"probe"' }
  const answer = () => new Response(body, { headers })
  const fetch = {
    sync: answer,
    promise: async () => {
      await null
      return answer()
    },
    redis: async () => {
      await redis.send('GET', ['probe'])
      return answer()
    },
    batched: async () => {
      await batchedGet()
      return answer()
    },
  }[mode]
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch })
  console.log(`listening ${server.port}`)
}

/** Every mode's server, wrk against each in turn, round by round. */
async function compare(rounds: number, seconds: number) {
  const servers = []
  for (const mode of MODES) {
    const proc = Bun.spawn(['taskset', '-c', '0', process.execPath, import.meta.path, mode], { stdout: 'pipe' })
    const { value } = await proc.stdout.getReader().read()
    const port = Number(/listening (\d+)/.exec(new TextDecoder().decode(value))?.[1])
    servers.push({ mode, proc, port, micros: [] as number[] })
  }
  try {
    for (let round = 0; round < rounds; round++)
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length]!
        const before = cpuSeconds(server.proc.pid)
        const wrk = Bun.spawnSync([
          ...['taskset', '-c', '1', 'wrk', '-t1', '-c50', `-d${seconds}s`],
          `http://127.0.0.1:${server.port}/`,
        ])
        const requests = Number(/(\d+) requests in/.exec(wrk.stdout.toString())?.[1])
        server.micros.push(((cpuSeconds(server.proc.pid) - before) / requests) * 1e6)
      }
    for (const { mode, micros } of servers)
      console.log(`${mode.padEnd(8)} ${spread(micros, 1)} µs of server CPU per request`)
  } finally {
    for (const { proc } of servers) proc.kill()
  }
}
