import { afterEach, describe, expect, test } from 'bun:test'
import { banFreeKeyFor, checkRecorded, recordAnswer } from '../../bench/lib/load'
import { SCENARIOS } from '../../bench/lib/scenarios'
import { BAN_MS } from '../../src/ratelimit/windows'
import { FREE, FUTURE_MINUTE, json, makeTestApp } from '../helpers'

const stops: (() => void)[] = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})

/** The app on a port, on a clock the test moves (the sleeps of banFreeKeyFor move it too), with a Free key. */
async function servedOnClock() {
  let now = FUTURE_MINUTE + 1000
  const slept: number[] = []
  let requests = 0
  const { app, secret, call } = await makeTestApp({ clock: () => now, socketAddress: () => '127.0.0.1' }, FREE)
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => {
      requests++
      return app.handle(request)
    },
  })
  stops.push(() => server.stop(true))
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      slept.push(ms)
      now += ms
    },
  }
  const bannedUntil = async () => (await json(await call('GET', '/v1/rate_limit', { key: secret }))).bannedUntil
  return {
    url: `http://127.0.0.1:${server.port}`,
    secret,
    clock,
    slept,
    requests: () => requests,
    bannedUntil,
    move: (ms: number) => {
      now += ms
    },
    now: () => now,
  }
}

// The side-by-side bench keeps the 429 path's key banned with it (bench/lib/compare_peers.ts): a ban is not
// renewed by the refusals it answers, so a run past its end measured a minute of 200s as the service's 429s.
describe('banFreeKeyFor (bench/lib/load.ts)', () => {
  test('bans a key that is not banned, for the ban the service gives', async () => {
    const served = await servedOnClock()
    expect(await served.bannedUntil()).toBeNull()
    await banFreeKeyFor(served.url, served.secret, 60_000, served.clock)
    expect((await served.bannedUntil()) * 1000).toBe(Math.ceil((served.now() + BAN_MS) / 1000) * 1000)
    expect(served.slept).toEqual([])
  })

  test('leaves a ban that outlasts what follows as it is, asking only when it ends', async () => {
    const served = await servedOnClock()
    await banFreeKeyFor(served.url, served.secret, 60_000, served.clock)
    const ban = await served.bannedUntil()
    served.move(BAN_MS - 120_000)
    const before = served.requests()
    await banFreeKeyFor(served.url, served.secret, 60_000, served.clock)
    expect(served.requests() - before).toBe(1)
    expect(await served.bannedUntil()).toBe(ban)
    expect(served.slept).toEqual([])
  })

  test('waits out a ban that would end within what follows, then bans the key again', async () => {
    const served = await servedOnClock()
    await banFreeKeyFor(served.url, served.secret, 60_000, served.clock)
    const ban = (await served.bannedUntil()) * 1000
    served.move(BAN_MS - 30_000)
    const left = ban - served.now()
    await banFreeKeyFor(served.url, served.secret, 60_000, served.clock)
    expect(served.slept).toEqual([left + 1000])
    expect((await served.bannedUntil()) * 1000).toBeGreaterThan(served.now() + BAN_MS - 1000)
  })
})

describe('checkRecorded (bench/lib/load.ts)', () => {
  test("refuses a 429 path's answer that is not a 429, which the references would replay as the service's", async () => {
    const served = await servedOnClock()
    const refused = SCENARIOS.find((scenario) => scenario.name === '429 path')!
    const context = { keys: { unlimited: served.secret, free: served.secret }, pets: 0 }
    const page = await recordAnswer(served.url, refused, context)
    expect(page.status).toBe(200)
    expect(() => checkRecorded(refused, page, context)).toThrow("429 path: the service's answer to replay is wrong")
    await banFreeKeyFor(served.url, served.secret, 60_000, served.clock)
    const answer = await recordAnswer(served.url, refused, context)
    expect(answer.status).toBe(429)
    expect(() => checkRecorded(refused, answer, context)).not.toThrow()
  })
})
