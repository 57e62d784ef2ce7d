import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type FreshServer, postPet, rawExchange, startFreshServer } from './process_helpers'

/** Sends `head` (and `body`) as raw bytes and reads until the server closes: the status, headers and body. */
async function raw(
  port: number,
  head: string[],
  body = '',
): Promise<{ status: number; headers: Headers; body: string }> {
  const { response } = await rawExchange(port, `${head.join('\r\n')}\r\n\r\n${body}`)
  const [top = '', ...rest] = response.split('\r\n\r\n')
  const [statusLine = '', ...lines] = top.split('\r\n')
  const headers = new Headers(
    lines.map(
      (line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string],
    ),
  )
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') }
}

describe('HTTP at its edges: Host', () => {
  let fresh: FreshServer
  let port: number
  beforeAll(async () => {
    fresh = await startFreshServer()
    port = Number(new URL(fresh.server.url).port)
    for (const name of ['Rex', 'Tom']) await postPet(fresh.server.url, fresh.key, { name, categoryId: 1 })
  })
  afterAll(() => fresh?.cleanup())

  const auth = () => `Authorization: Bearer ${fresh.key}`

  test('HTTP/1.0 without Host is routed as any request: the pet, its 401 without a key, Location and Link on our own address', async () => {
    const own = `http://127.0.0.1:${port}`
    const pet = await raw(port, ['GET /v1/pets/1 HTTP/1.0', auth()])
    expect(pet.status).toBe(200)
    expect(JSON.parse(pet.body)).toMatchObject({ id: 1, name: 'Rex' })
    expect((await raw(port, ['GET /v1/pets/1 HTTP/1.0'])).status).toBe(401)
    const list = await raw(port, ['GET /v1/pets?limit=1 HTTP/1.0', auth()])
    expect(list.headers.get('link')).toBe(`<${own}/v1/pets?limit=1&after=1>; rel="next"`)
    const body = JSON.stringify({ name: 'Ivy', categoryId: 2 })
    const created = await raw(
      port,
      ['POST /v1/pets HTTP/1.0', auth(), 'Content-Type: application/json', `Content-Length: ${body.length}`],
      body,
    )
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`${own}/v1/pets/3`)
  })

  test.each([
    [['Host: a', 'Host: b'], 'Send exactly one Host header'],
    [['Host: a/b'], 'The Host header is not a valid host[:port]'],
    [['Host: exa mple'], 'The Host header is not a valid host[:port]'],
    [['Host: '], 'The Host header is not a valid host[:port]'],
  ])('%p is refused with a JSON 400', async (hosts, message) => {
    const answer = await raw(port, ['GET /v1/pets/1 HTTP/1.1', ...hosts, auth(), 'Connection: close'])
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ code: 'invalid_request', message, status: 400 })
  })

  test('an ordinary Host, a short one and an IPv6 literal are answered as before', async () => {
    for (const host of ['127.0.0.1', 'x', '[::1]:80'])
      expect((await raw(port, ['GET /v1/pets/1 HTTP/1.1', `Host: ${host}`, auth(), 'Connection: close'])).status).toBe(
        200,
      )
  })
})
