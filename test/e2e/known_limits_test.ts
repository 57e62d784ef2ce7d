import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type FreshServer, rawExchange, startFreshServer } from './process_helpers'

/** The status lines the server answers `text` with, written in one go, before it closes the connection. */
async function statusLines(port: number, text: string): Promise<string[]> {
  const { response } = await rawExchange(port, text, 5000)
  return response.split('\r\n').filter((line) => line.startsWith('HTTP/1.1 '))
}

/**
 * Bun's known limits that the service cannot work around, each pinned by a
 * test that fails the day a Bun upgrade lifts it (then update
 * docs/operations.md, "Known limits", and this test).
 */
describe("Bun's known limits", () => {
  let fresh: FreshServer
  beforeAll(async () => {
    fresh = await startFreshServer({ LOG_LEVEL: 'warn' })
  })
  afterAll(() => fresh?.cleanup())

  test('HTTP/1.1 pipelining behind an asynchronous answer closes the connection (oven-sh/bun#38128)', async () => {
    const port = Number(new URL(fresh.server.url).port)
    const get = (close: boolean) =>
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fresh.key}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`
    // One request at a time on the connection is answered, as every client but a pipelining one sends them.
    expect(await statusLines(port, get(true))).toEqual(['HTTP/1.1 200 OK'])
    const pipelined = await statusLines(port, get(false) + get(true))
    // Today at most the first is answered. Two answers mean Bun has fixed it: update the docs and this test.
    expect(pipelined.length).toBeLessThan(2)
  })
})
