import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { SQL } from 'bun'
import { KEY_CHANGE_SEEN_WITHIN_MS } from '../../src/keys/store'
import { eventually, json } from '../helpers'
import { deleteRedisKeys, SHARED_STORES, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../shared_services'
import { postPet, runCli, type ServerProcess, startFreshServer, startServer } from './process_helpers'

/** Running servers and the environment the CLI needs to reach their database (and Redis). */
interface Deployment {
  servers: ServerProcess[]
  env: Record<string, string>
  stop(): Promise<void>
}

const DEPLOYMENTS: { name: string; skip: boolean; start(): Promise<Deployment> }[] = [
  {
    name: 'one server on SQLite',
    skip: false,
    async start() {
      const fresh = await startFreshServer({ LOG_LEVEL: 'warn', TRUST_PROXY: 'on' }, 'animal-store-lifecycle-')
      return { servers: [fresh.server], env: { DATABASE_PATH: fresh.db }, stop: () => fresh.cleanup() }
    },
  },
  {
    name: 'three instances on PostgreSQL + Redis',
    skip: !SHARED_STORES,
    async start() {
      const database = uniqueName('lifecycle')
      const prefix = uniqueName('lifecycle')
      const admin = new SQL(TEST_DATABASE_URL!, { max: 1 })
      await admin`CREATE DATABASE ${admin(database)}`
      const url = new URL(TEST_DATABASE_URL!)
      url.pathname = `/${database}`
      const env = {
        DATABASE_URL: url.toString(),
        REDIS_URL: TEST_REDIS_URL!,
        REDIS_KEY_PREFIX: prefix,
        LOG_LEVEL: 'warn',
      }
      const servers = await Promise.all([1, 2, 3].map(() => startServer({ ...env, TRUST_PROXY: 'on' })))
      return {
        servers,
        env,
        async stop() {
          await Promise.all(servers.map((server) => server.stop()))
          await admin`DROP DATABASE IF EXISTS ${admin(database)} WITH (FORCE)`
          await admin.close()
          await deleteRedisKeys(prefix)
        },
      }
    },
  },
]

const PET = { name: 'Rex', categoryId: 1 }

// Tests wait for expiries and graces of seconds, and for a fresh clock minute (up to 15 s).
setDefaultTimeout(30_000)

/** A random IPv4 address in 10.0.0.0/8. */
function anyAddress(): string {
  const n = crypto.getRandomValues(new Uint32Array(1))[0]!
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
}

for (const deployment of DEPLOYMENTS) {
  describe.skipIf(deployment.skip)(`key lifecycle commands on running servers: ${deployment.name}`, () => {
    let running: Deployment
    // Hooks of a skipped block would be reported as skipped "(unnamed)" tests, inflating the count.
    if (!deployment.skip) {
      beforeAll(async () => {
        running = await deployment.start()
      })
      afterAll(() => running.stop())
    }

    /** `keys …` as an operator runs it, parsed from --json. */
    async function keys(...args: string[]) {
      const result = await runCli(['keys', ...args, '--json'], running.env)
      expect(result.code).toBe(0)
      return JSON.parse(result.stdout)
    }

    // Each request from an address of its own: the polls' 401s would otherwise use up 127.0.0.1's quota.
    const get = (server: ServerProcess, key: string, path = '/v1/pets') =>
      fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': anyAddress() },
      }).catch((error) => {
        // A server that went away: say what it wrote.
        throw new Error(`${server.url}: ${error} (exit ${server.proc.exitCode}):\n${server.stderr()}`)
      })

    /** Each server's status for a GET with `key`, joined: "200,200,200". */
    const statuses = async (key: string) =>
      (await Promise.all(running.servers.map(async (server) => (await get(server, key)).status))).join()
    const every = (status: number) => running.servers.map(() => status).join()

    /**
     * Polls every server until each answers `status` for `key`, for at most
     * KEY_CHANGE_SEEN_WITHIN_MS from the moment the CLI that made the change
     * returned (its commit came just before).
     */
    async function expectEverywhereSoon(key: string, status: number) {
      expect(await eventually(() => statuses(key), every(status), KEY_CHANGE_SEEN_WITHIN_MS)).toBe(every(status))
    }

    /** Waits, if needed, so the next few seconds stay within one clock minute. */
    async function awayFromMinuteEnd() {
      const intoMinute = Date.now() % 60_000
      if (intoMinute > 45_000) await Bun.sleep(60_000 - intoMinute + 50)
    }

    test('an expired key is refused by every server within a second of its expiry', async () => {
      const expiresAt = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000)
      const { key } = await keys('create', '--plan', 'free', '--expires', expiresAt.toISOString())
      await expectEverywhereSoon(key, 200)
      await Bun.sleep(Math.max(0, expiresAt.getTime() - Date.now()))
      expect(await eventually(() => statuses(key), every(401), KEY_CHANGE_SEEN_WITHIN_MS)).toBe(every(401))
      const refused = await get(running.servers[0]!, key)
      expect((await json(refused)).message).toBe('The API key has expired; ask for a new one')
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    })

    test('roll leaves both keys working, then the old one is refused once its short --grace ends', async () => {
      const { id, key: old } = await keys('create', '--plan', 'pro', '--name', 'rolled')
      await expectEverywhereSoon(old, 200)
      const rolled = await keys('roll', String(id), '--grace', '3s')
      expect(rolled.replaces.id).toBe(id)
      await expectEverywhereSoon(rolled.key, 200)
      expect(await statuses(old)).toBe(every(200))
      const graceEnd = Date.parse(rolled.replaces.expiresAt)
      await Bun.sleep(Math.max(0, graceEnd - Date.now()))
      expect(await eventually(() => statuses(old), every(401), KEY_CHANGE_SEEN_WITHIN_MS)).toBe(every(401))
      expect(await statuses(rolled.key)).toBe(every(200))
    })

    test('a rolled pair shares one quota: 60 requests split across the two keys (and servers), the 61st is 429', async () => {
      const { id, key: old } = await keys('create', '--plan', 'free', '--name', 'shared quota')
      const { key: successor } = await keys('roll', String(id), '--grace', '1h')
      await expectEverywhereSoon(successor, 200)
      await expectEverywhereSoon(old, 200)
      // The readiness checks above were counted too: start from a clean quota.
      await keys('unban', String(id))
      await awayFromMinuteEnd()
      await Bun.sleep(KEY_CHANGE_SEEN_WITHIN_MS)
      const { servers } = running
      for (let i = 0; i < 60; i++) {
        const response = await get(servers[i % servers.length]!, i % 2 === 0 ? old : successor)
        expect(response.status).toBe(200)
      }
      const over = await get(servers[0]!, old)
      expect(over.status).toBe(429)
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0')
      expect((await get(servers.at(-1)!, successor)).status).toBe(429)
    })

    test('unban lifts a ban on every running server within a second', async () => {
      const { id, key } = await keys('create', '--plan', 'free', '--name', 'hammering')
      await expectEverywhereSoon(key, 200)
      await awayFromMinuteEnd()
      let last: Response | undefined
      for (let i = 0; i < 122 && last?.status !== 429; i++) last = await get(running.servers[0]!, key)
      for (let i = 0; i < 61; i++) last = await get(running.servers[0]!, key)
      expect((await json(last!)).code).toBe('key_banned')
      expect(await statuses(key)).toBe(every(429))
      await keys('unban', String(id))
      // With Redis, a server that refused the key as banned refuses it on its own until it applies the unban
      // itself (within the second); the requests served meanwhile by the others are counted afresh.
      let served = 0
      const seen = await eventually(
        async () => {
          const answers = await statuses(key)
          served += answers.split(',').filter((status) => status === '200').length
          return answers
        },
        every(200),
        KEY_CHANGE_SEEN_WITHIN_MS,
      )
      expect(seen).toBe(every(200))
      const quota = await json(await get(running.servers[0]!, key, '/v1/rate_limit'))
      expect(quota.bannedUntil).toBeNull()
      // The minute starts afresh: only what was served since the unban counts, none of the 60 before it.
      expect(quota.minute.used).toBe(served)
    })

    test('a read-only key gets 200 on GET and 403 on POST; set-access read-write reaches every server within a second', async () => {
      const { id, key } = await keys('create', '--plan', 'pro', '--read-only')
      await expectEverywhereSoon(key, 200)
      for (const server of running.servers) {
        const refused = await postPet(server.url, key, PET)
        expect(refused.status).toBe(403)
        expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="animal-store", error="insufficient_scope"')
        expect((await json(refused)).code).toBe('insufficient_scope')
      }
      await keys('set-access', String(id), 'read-write')
      const created = async () =>
        (await Promise.all(running.servers.map(async (server) => (await postPet(server.url, key, PET)).status))).join()
      expect(await eventually(created, every(201), KEY_CHANGE_SEEN_WITHIN_MS)).toBe(every(201))
    })

    test('set-expiry reaches every server within a second, and never lifts it again', async () => {
      const { id, key } = await keys('create', '--plan', 'pro')
      await expectEverywhereSoon(key, 200)
      await keys('set-expiry', String(id), new Date(Date.now() + 1500).toISOString())
      await Bun.sleep(1500)
      await expectEverywhereSoon(key, 401)
      await keys('set-expiry', String(id), 'never')
      await expectEverywhereSoon(key, 200)
    })

    test('keys list shows when a key was last used, to the minute', async () => {
      const { id, key } = await keys('create', '--plan', 'pro', '--name', 'used')
      await expectEverywhereSoon(key, 200)
      const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString()
      const lastUsed = async () => {
        const listed = (await keys('list')) as { id: number; lastUsedAt: string | null }[]
        return listed.find((k) => k.id === id)?.lastUsedAt ?? null
      }
      const seen = await eventually(lastUsed, minute, 2000)
      expect(seen === minute || seen === new Date(Date.parse(minute) + 60_000).toISOString()).toBe(true)
    })
  })
}
