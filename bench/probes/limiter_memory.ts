// Memory of the in-memory rate limiter under a flood of distinct callers without a key, each
// parsed as the guard parses an address: a million IPv4 addresses, a million IPv6 /64 networks,
// five million random strings (as X-Forwarded-For hops that are not addresses). Each flood runs
// in its own process, beside a whole app, at ANON_SUBJECTS_MAX's default cap; it prints RSS and live heap after a full GC.
//
//   bun bench/probes/limiter_memory.ts [--flood ipv4|ipv6|strings] [--count N] [--cap N]

import { heapStats } from 'bun:jsc'
import { parseArgs } from 'node:util'
import { createApp } from '../../src/app'
import { sqliteStores } from '../../src/backends'
import { openDatabase } from '../../src/db/sqlite'
import { parseAddress } from '../../src/http/client_address'
import { createLogger } from '../../src/log'
import { DEFAULT_ANONYMOUS_MAX, MemoryRateLimiter } from '../../src/ratelimit/memory_limiter'
import { addressSubject } from '../../src/ratelimit/subject'

const FLOODS = { ipv4: 1_000_000, ipv6: 1_000_000, strings: 5_000_000 } as const
type Flood = keyof typeof FLOODS

const { values } = parseArgs({
  options: { flood: { type: 'string' }, count: { type: 'string' }, cap: { type: 'string' } },
})
const free = { rpm: 60, rpd: 1000 }
const SOCKET_PEER = parseAddress('192.0.2.10')
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

/** The `i`th distinct caller of a flood, as the limiter sees it. */
function subjectOf(flood: Flood, i: number): string | number {
  switch (flood) {
    case 'ipv4':
      return addressSubject(parseAddress(`${(i >>> 24) & 255}.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`))
    case 'ipv6':
      // A new /64 each time, with a different host part too: the host part must not matter.
      return addressSubject(parseAddress(`2001:db8:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::${i % 7}`))
    case 'strings':
      // As an X-Forwarded-For hop: text that is not an address counts as the socket's peer.
      return addressSubject(parseAddress(`${Math.random().toString(36).slice(2)}${i}`) ?? SOCKET_PEER)
  }
}

/** One flood in this process, through the limiter of a whole app (so RSS counts the service's code): one JSON line. */
function runFlood(flood: Flood, count: number, cap: number): void {
  const limiter = new MemoryRateLimiter({ anonymousMax: cap })
  const db = openDatabase(':memory:')
  const logger = createLogger('error')
  const { pets, orders, keys } = sqliteStores(db)
  createApp({
    pets,
    orders,
    keys,
    limiter,
    logger,
  })
  Bun.gc(true)
  const before = process.memoryUsage().rss
  const start = Date.UTC(2026, 10, 21, 10)
  const started = performance.now()
  for (let i = 0; i < count; i++) limiter.consume(subjectOf(flood, i), free, start + (i % 50_000))
  const seconds = (performance.now() - started) / 1000
  Bun.gc(true)
  const { rss } = process.memoryUsage()
  console.log(
    JSON.stringify({
      flood,
      count,
      cap,
      rssBefore: before,
      rss,
      heap: heapStats().heapSize,
      held: limiter.sizes(),
      seconds,
    }),
  )
}

if (values.flood) {
  const flood = values.flood as Flood
  runFlood(flood, Number(values.count ?? FLOODS[flood]), Number(values.cap ?? DEFAULT_ANONYMOUS_MAX))
} else {
  console.log('| flood | distinct callers | held | RSS before → after | live heap | time |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const flood of Object.keys(FLOODS) as Flood[]) {
    const args = ['--flood', flood, ...(values.count ? ['--count', values.count] : [])]
    const child = Bun.spawnSync([
      process.execPath,
      import.meta.path,
      ...args,
      ...(values.cap ? ['--cap', values.cap] : []),
    ])
    if (child.exitCode !== 0) throw new Error(`${flood}: ${child.stderr.toString()}`)
    const r = JSON.parse(child.stdout.toString())
    console.log(
      `| ${flood} | ${r.count.toLocaleString('en')} | ${r.held.anonymous.toLocaleString('en')} | ${mb(r.rssBefore)} → ${mb(r.rss)} MB | ${mb(r.heap)} MB | ${r.seconds.toFixed(1)} s |`,
    )
  }
}
