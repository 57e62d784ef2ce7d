import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { type FreshServer, rawExchange, type ServerProcess, startFreshServer } from './process_helpers'

describe('request bounds over a real port', () => {
  let fresh: FreshServer
  let server: ServerProcess
  let key: string
  let port: number

  beforeAll(async () => {
    fresh = await startFreshServer({ HTTP_IDLE_TIMEOUT: '1', LOG_LEVEL: 'warn' }, 'animal-store-bounds-')
    ;({ server, key } = fresh)
    port = Number(new URL(server.url).port)
  })
  afterAll(() => fresh.cleanup())

  test('a 20 KiB header reaches the app and gets the JSON 431', async () => {
    const response = await fetch(`${server.url}/v1/pets`, {
      headers: { authorization: `Bearer ${key}`, 'x-padding': 'p'.repeat(20 * 1024) },
    })
    expect(response.status).toBe(431)
    expect(await response.json()).toMatchObject({ code: 'headers_too_large', status: 431 })
  })

  test('150 small header fields reach the app and get the JSON 431; past the 198 fields of Bun its own bare 431', async () => {
    const fields = (count: number) => Array.from({ length: count }, (_, i) => `X-Field-${i}: v`).join('\r\n')
    const head = (count: number) =>
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${fields(count)}\r\nConnection: close\r\n\r\n`
    const app = (await rawExchange(port, head(150))).response
    expect(app).toStartWith('HTTP/1.1 431')
    expect(app).toContain('"code":"headers_too_large"')
    expect(app).toContain('at most 100 are accepted')
    expect(app.toLowerCase()).toContain('x-ratelimit-limit')
    // Bun's own ceiling (BUN_MAX_HEADER_FIELDS): 198 fields in all pass, 199 get Bun's bare 431.
    expect((await rawExchange(port, head(195))).response).toContain('"code":"headers_too_large"')
    const bun = (await rawExchange(port, head(196))).response
    expect(bun).toStartWith('HTTP/1.1 431')
    expect(bun).not.toContain('headers_too_large')
  })

  test('a 10 KiB URL reaches the app and gets the JSON 414', async () => {
    const response = await fetch(`${server.url}/v1/pets?status=${'s'.repeat(10 * 1024)}`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(response.status).toBe(414)
    expect(await response.json()).toMatchObject({ code: 'uri_too_long', status: 414 })
  })

  test("a head over 64 KiB gets Bun's own 431, an answer rather than a dropped connection", async () => {
    const { response } = await rawExchange(
      port,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(70 * 1024)}\r\n\r\n`,
    )
    expect(response).toStartWith('HTTP/1.1 431')
  })

  test("a body over 1 MiB gets Bun's own 413", async () => {
    const response = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    })
    expect(response.status).toBe(413)
  })

  // Bun cuts off a connection whose request head is incomplete after about ten seconds, whatever
  // idleTimeout says; idleTimeout (HTTP_IDLE_TIMEOUT, 1 s here) governs idle keep-alive connections.
  test('a client that stalls halfway through its request head is disconnected, and others are still served', async () => {
    const stalled = rawExchange(port, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n`, 25_000)
    const meanwhile = await fetch(`${server.url}/health`)
    expect(meanwhile.status).toBe(200)
    const { closedByServer, response } = await stalled
    expect(closedByServer).toBe(true)
    expect(response).toBe('')
  }, 30_000)

  test('an idle keep-alive connection is closed after HTTP_IDLE_TIMEOUT', async () => {
    const { closedByServer, response } = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', 25_000)
    expect(response).toStartWith('HTTP/1.1 200')
    expect(closedByServer).toBe(true)
  }, 30_000)
})

describe('a body that stalls mid-upload', () => {
  test('is logged as what it is, 408 request_timeout, once the idle timeout closes the connection', async () => {
    const fresh = await startFreshServer({ HTTP_IDLE_TIMEOUT: '1' }, 'animal-store-stall-')
    try {
      const port = Number(new URL(fresh.server.url).port)
      const head = [
        'POST /v1/pets HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${fresh.key}`,
        'Content-Type: application/json',
        'Content-Length: 100',
      ]
      const { closedByServer } = await rawExchange(port, `${head.join('\r\n')}\r\n\r\n{"name":"Re`)
      expect(closedByServer).toBe(true)
      await fresh.server.stop()
      const lines = (await new Response(fresh.server.proc.stdout as ReadableStream).text())
        .split('\n')
        .filter((line) => line.includes('"path":"/v1/pets"'))
        .map((line) => JSON.parse(line))
      expect(lines).toEqual([expect.objectContaining({ method: 'POST', status: 408 })])
    } finally {
      await fresh.cleanup()
    }
  }, 60_000)
})

describe('chunked bodies over the limit', () => {
  test('are cut at 16 KiB + 1, not read whole to Bun’s 1 MiB: 150 of them at once leave memory flat', async () => {
    const { server, key, db, cleanup } = await startFreshServer({ LOG_LEVEL: 'warn' }, 'animal-store-chunked-')
    try {
      // Unlimited, so every upload reaches the body parser (the server sees the change within a second).
      new Database(db).run("UPDATE api_keys SET plan = 'enterprise', rpm = 1000000, rpd = 1000000000")
      await Bun.sleep(1200)
      const rss = () =>
        Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) / 1024
      // Warm: the first requests load code and fill caches the flood must not be blamed for.
      for (let i = 0; i < 20; i++)
        await (await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).text()
      const before = rss()
      const chunk = new Uint8Array(64 * 1024).fill(0x20)
      const upload = async () => {
        let sent = 0
        // No Content-Length: sent chunked, 1 MiB of blanks inside a JSON object.
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"'))
            if (sent >= 16) {
              controller.enqueue(new TextEncoder().encode('","categoryId":1}'))
              controller.close()
              return
            }
            sent++
            controller.enqueue(chunk)
          },
        })
        try {
          const response = await fetch(`${server.url}/v1/pets`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body,
          })
          await response.text()
          return response.status
        } catch {
          return 'closed'
        }
      }
      const statuses = await Promise.all(Array.from({ length: 150 }, upload))
      // Each is refused: a 413, or the connection closed on the rest of the upload.
      expect(statuses.filter((status) => status !== 413 && status !== 'closed')).toEqual([])
      expect(statuses.filter((status) => status === 413).length).toBeGreaterThan(0)
      const after = rss()
      // Read whole, 150 bodies of 1 MiB held at once took over 150 MB; cut at the limit they take a few.
      expect({ before, grewMB: after - before }).toEqual({ before, grewMB: expect.any(Number) })
      expect(after - before).toBeLessThan(60)
      expect((await fetch(`${server.url}/health`)).status).toBe(200)
    } finally {
      await cleanup()
    }
  }, 60_000)
})
