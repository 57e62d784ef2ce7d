// Whether a change keeps the HTTP behaviour byte for byte: the same corpus
// of raw HTTP/1.1 requests (every route, error and limit path, CORS, Host
// faults, the admin listener, 429 and the ban; 232 in all) goes to two
// trees' real servers side by side, each on a fresh SQLite file with the
// same four keys made by its own CLI, and every answer (status line,
// headers in order, body) is compared after the parts that differ by nature
// are masked: Date, the request id's random prefix, times until a window
// ends, the port. Make the "before" tree with `git worktree add --detach
// /tmp/before <rev>` and link node_modules into it. Exit 1 if any answer differs.
//
//   bun bench/tools/replay_trees.ts --before /tmp/before [--after .] [--redis redis://127.0.0.1:6379]
//   (with --redis both count in Redis, each under a prefix of its own)
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: join(import.meta.dir, '..', '..') },
    redis: { type: 'string' },
    transcript: { type: 'string' },
  },
})
if (values.before === undefined) throw new Error('--before DIR is required (a checkout of the tree to compare with)')
const beforeDir = resolve(values.before)
const afterDir = resolve(values.after)
const BUN = process.execPath

/** Runs the tree's CLI on `db` and gives its stdout (a key, for `keys create`). */
async function cli(dir: string, db: string, args: string[]): Promise<string> {
  const proc = Bun.spawn([BUN, join(dir, 'src/main.ts'), ...args, '--db', db], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, LOG_LEVEL: 'silent' },
  })
  const out = await new Response(proc.stdout).text()
  await proc.exited
  return out.trim()
}

/** One tree's server on a fresh database with four keys, once it says it listens (and its admin listener does). */
async function start(dir: string, extraEnv: Record<string, string>) {
  const folder = mkdtempSync(join(tmpdir(), 'replay-'))
  const db = join(folder, 'db.sqlite')
  // Keys made before the server starts: an unlimited one, a read-only one, a Free one, and a revoked one.
  const rw = await cli(dir, db, ['keys', 'create', '--plan', 'enterprise', '--rpm', '100000', '--rpd', '1000000'])
  const ro = await cli(dir, db, [
    'keys',
    'create',
    '--plan',
    'enterprise',
    '--rpm',
    '100000',
    '--rpd',
    '1000000',
    '--read-only',
  ])
  const free = await cli(dir, db, ['keys', 'create', '--plan', 'free'])
  const gone = await cli(dir, db, ['keys', 'create', '--plan', 'free'])
  await cli(dir, db, ['keys', 'revoke', '4'])
  const proc = Bun.spawn([BUN, '--max-http-header-size=65536', join(dir, 'src/main.ts'), 'serve'], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: db, LOG_LEVEL: 'silent', ...extraEnv },
  })
  const reader = proc.stderr.getReader()
  const listening = /listening on http:\/\/\S+:(\d+)/
  const admin = /Admin listener on http:\/\/\S+:(\d+)/
  let text = ''
  while (!listening.test(text) || (extraEnv.ADMIN_PORT !== undefined && !admin.test(text))) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the server of ${dir} did not start:\n${text}`)
    text += new TextDecoder().decode(value)
  }
  const adminPort = admin.exec(text)?.[1]
  return {
    proc,
    folder,
    port: Number(listening.exec(text)?.[1]),
    adminPort: adminPort === undefined ? undefined : Number(adminPort),
    keys: { rw, ro, free, gone },
  }
}

/**
 * Sends one raw request on its own connection and gives every byte of the
 * answer. The request asks `Connection: close`; the socket is not half-closed
 * first, which a server may take for a client gone before it answers.
 */
function raw(port: number, request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    const done = () => resolve(Buffer.concat(chunks))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', done)
    socket.on('error', (error) => (chunks.length > 0 ? done() : reject(error)))
    setTimeout(() => {
      socket.destroy()
      done()
    }, 3000)
  })
}

type Keys = Awaited<ReturnType<typeof start>>['keys']
/** One request of the corpus: a name, and its raw text made with the server's keys; `admin` sends it to the admin listener. */
type Req = { name: string; admin?: boolean; build: (k: Keys) => string }
const H = 'Host: store.test\r\nConnection: close\r\n'
const bearer = (k: Keys, key: keyof Keys | undefined) => (key ? `Authorization: Bearer ${k[key]}\r\n` : '')
const get =
  (path: string, key?: keyof Keys, extra = '') =>
  (k: Keys) =>
    `GET ${path} HTTP/1.1\r\n${H}${bearer(k, key)}${extra}\r\n`
const send =
  (
    method: string,
    path: string,
    key: keyof Keys | undefined,
    body: string,
    extra = 'Content-Type: application/json\r\n',
  ) =>
  (k: Keys) =>
    `${method} ${path} HTTP/1.1\r\n${H}${bearer(k, key)}${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

const corpus: Req[] = [
  { name: 'root redirect', build: get('/') },
  { name: 'docs page', build: get('/docs') },
  { name: 'docs page gzip', build: get('/docs', undefined, 'Accept-Encoding: gzip\r\n') },
  { name: 'docs/ slash', build: get('/docs/') },
  { name: 'openapi', build: get('/openapi.json') },
  { name: 'openapi br', build: get('/openapi.json', undefined, 'Accept-Encoding: br\r\n') },
  { name: 'openapi other host', build: (k) => get('/openapi.json')(k).replace('store.test', 'other.example:8080') },
  { name: 'init js', build: get('/docs/swagger-init.js') },
  { name: 'favicon', build: get('/favicon.ico') },
  { name: 'health', build: get('/health') },
  { name: 'unknown outside v1', build: get('/nope') },
  { name: 'list no key', build: get('/v1/pets') },
  { name: 'list bad scheme', build: get('/v1/pets', undefined, 'Authorization: Basic abc\r\n') },
  { name: 'list malformed token', build: get('/v1/pets', undefined, 'Authorization: Bearer letmein\r\n') },
  { name: 'list unknown key', build: get('/v1/pets', undefined, `Authorization: Bearer ask_${'A'.repeat(43)}\r\n`) },
  { name: 'list revoked key', build: get('/v1/pets', 'gone') },
  { name: 'list empty', build: get('/v1/pets', 'rw') },
  { name: 'create 1', build: send('POST', '/v1/pets', 'rw', '{"name":"Rex","categoryId":1}') },
  { name: 'create 2 sold', build: send('POST', '/v1/pets', 'rw', '{"name":"Tom","categoryId":2,"status":"sold"}') },
  {
    name: 'create idem',
    build: send(
      'POST',
      '/v1/pets',
      'rw',
      '{"name":"Ida","categoryId":3}',
      'Content-Type: application/json\r\nIdempotency-Key: abc-1\r\n',
    ),
  },
  {
    name: 'create idem replay',
    build: send(
      'POST',
      '/v1/pets',
      'rw',
      '{ "categoryId":3, "name":"Ida"}',
      'Content-Type: application/json\r\nIdempotency-Key: abc-1\r\n',
    ),
  },
  {
    name: 'create idem conflict',
    build: send(
      'POST',
      '/v1/pets',
      'rw',
      '{"name":"Idb","categoryId":3}',
      'Content-Type: application/json\r\nIdempotency-Key: abc-1\r\n',
    ),
  },
  {
    name: 'create idem key-shaped',
    build: send(
      'POST',
      '/v1/pets',
      'rw',
      '{"name":"Idb","categoryId":3}',
      `Content-Type: application/json\r\nIdempotency-Key: ask_${'B'.repeat(43)}\r\n`,
    ),
  },
  ...Array.from({ length: 25 }, (_, i) => ({
    name: `create bulk ${i}`,
    build: send(
      'POST',
      '/v1/pets',
      'rw',
      JSON.stringify({ name: `Pet ${i} ✓`, categoryId: i + 1, status: ['available', 'pending', 'sold'][i % 3] }),
    ),
  })),
  { name: 'create read-only', build: send('POST', '/v1/pets', 'ro', '{"name":"Rex","categoryId":1}') },
  { name: 'create extra prop', build: send('POST', '/v1/pets', 'rw', '{"name":"Rex","categoryId":1,"id":5}') },
  { name: 'create missing name', build: send('POST', '/v1/pets', 'rw', '{"categoryId":1}') },
  { name: 'create blank name', build: send('POST', '/v1/pets', 'rw', '{"name":"   ","categoryId":1}') },
  { name: 'create big id', build: send('POST', '/v1/pets', 'rw', '{"name":"R","categoryId":9007199254740993}') },
  { name: 'create bad json', build: send('POST', '/v1/pets', 'rw', '{"name":') },
  { name: 'create empty', build: send('POST', '/v1/pets', 'rw', '') },
  { name: 'create array', build: send('POST', '/v1/pets', 'rw', '[]') },
  { name: 'create proto', build: send('POST', '/v1/pets', 'rw', '{"__proto__":{},"name":"a","categoryId":1}') },
  {
    name: 'create text/plain',
    build: send('POST', '/v1/pets', 'rw', '{"name":"Rex","categoryId":1}', 'Content-Type: text/plain\r\n'),
  },
  { name: 'create no ctype', build: send('POST', '/v1/pets', 'rw', '{"name":"Rex","categoryId":1}', '') },
  {
    name: 'create too large',
    build: send('POST', '/v1/pets', 'rw', JSON.stringify({ name: 'x'.repeat(20000), categoryId: 1 })),
  },
  { name: 'create no key bad body', build: send('POST', '/v1/pets', undefined, '{') },
  { name: 'list default', build: get('/v1/pets', 'rw') },
  { name: 'list gzip', build: get('/v1/pets', 'rw', 'Accept-Encoding: gzip\r\n') },
  { name: 'list br', build: get('/v1/pets', 'rw', 'Accept-Encoding: br, gzip\r\n') },
  { name: 'list limit 5', build: get('/v1/pets?limit=5', 'rw') },
  { name: 'list limit 5 after 5', build: get('/v1/pets?limit=5&after=5', 'rw') },
  { name: 'list limit 5 after 5 again (cached)', build: get('/v1/pets?limit=5&after=5', 'rw') },
  { name: 'list status sold', build: get('/v1/pets?status=sold&limit=3', 'rw') },
  { name: 'list limit 100', build: get('/v1/pets?limit=100', 'rw') },
  { name: 'list limit 0', build: get('/v1/pets?limit=0', 'rw') },
  { name: 'list limit 101', build: get('/v1/pets?limit=101', 'rw') },
  { name: 'list limit 1.5', build: get('/v1/pets?limit=1.5', 'rw') },
  { name: 'list limit +5', build: get('/v1/pets?limit=+5', 'rw') },
  { name: 'list status bad', build: get('/v1/pets?status=lost', 'rw') },
  { name: 'list unknown param', build: get('/v1/pets?staus=sold', 'rw') },
  { name: 'list after -1', build: get('/v1/pets?after=-1', 'rw') },
  { name: 'list repeated', build: get('/v1/pets?limit=2&limit=3', 'rw') },
  { name: 'list etag 304', build: (k) => get('/v1/pets?limit=2', 'rw', 'If-None-Match: *\r\n')(k) },
  { name: 'list read-only ok', build: get('/v1/pets?limit=2', 'ro') },
  { name: 'get 1', build: get('/v1/pets/1', 'rw') },
  { name: 'get 1 304', build: get('/v1/pets/1', 'rw', 'If-None-Match: *\r\n') },
  { name: 'get 999', build: get('/v1/pets/999', 'rw') },
  { name: 'get abc', build: get('/v1/pets/abc', 'rw') },
  { name: 'get 0', build: get('/v1/pets/0', 'rw') },
  { name: 'get no key', build: get('/v1/pets/1') },
  { name: 'get unknown param', build: get('/v1/pets/1?x=1', 'rw') },
  { name: 'rate_limit', build: get('/v1/rate_limit', 'rw') },
  { name: 'rate_limit free', build: get('/v1/rate_limit', 'free') },
  { name: 'unknown v1 path', build: get('/v1/nope', 'rw') },
  { name: 'unknown v1 path no key', build: get('/v1/nope') },
  { name: 'delete 405', build: (k) => `DELETE /v1/pets/1 HTTP/1.1\r\n${H}Authorization: Bearer ${k.rw}\r\n\r\n` },
  {
    name: 'put 405',
    build: (k) => `PUT /v1/pets HTTP/1.1\r\n${H}Authorization: Bearer ${k.rw}\r\nContent-Length: 0\r\n\r\n`,
  },
  { name: 'head list', build: (k) => `HEAD /v1/pets?limit=1 HTTP/1.1\r\n${H}Authorization: Bearer ${k.rw}\r\n\r\n` },
  {
    name: 'options preflight',
    build: () =>
      `OPTIONS /v1/pets HTTP/1.1\r\n${H}Origin: https://shop.example\r\nAccess-Control-Request-Method: POST\r\n\r\n`,
  },
  { name: 'cors list', build: get('/v1/pets?limit=1', 'rw', 'Origin: https://shop.example\r\n') },
  { name: 'cors other origin', build: get('/v1/pets?limit=1', 'rw', 'Origin: https://evil.example\r\n') },
  { name: 'long target', build: get(`/v1/pets?${'a'.repeat(9000)}=1`, 'rw') },
  {
    name: 'many headers',
    build: get('/v1/pets', 'rw', Array.from({ length: 120 }, (_, i) => `X-H${i}: v\r\n`).join('')),
  },
  { name: 'big headers', build: get('/v1/pets', 'rw', `X-Big: ${'v'.repeat(17000)}\r\n`) },
  { name: 'request id kept', build: get('/v1/pets?limit=1', 'rw', 'X-Request-Id: my-id-1\r\n') },
  { name: 'request id key-shaped', build: get('/v1/pets?limit=1', 'rw', `X-Request-Id: ask_${'C'.repeat(43)}\r\n`) },
  {
    name: 'two hosts',
    build: (k) =>
      `GET /v1/pets HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\nConnection: close\r\nAuthorization: Bearer ${k.rw}\r\n\r\n`,
  },
  {
    name: 'bad host',
    build: (k) => `GET /v1/pets HTTP/1.1\r\nHost: a b\r\nConnection: close\r\nAuthorization: Bearer ${k.rw}\r\n\r\n`,
  },
  { name: 'http/1.0 no host', build: (k) => `GET /v1/pets?limit=1 HTTP/1.0\r\nAuthorization: Bearer ${k.rw}\r\n\r\n` },
  { name: 'admin health', admin: true, build: get('/health') },
  { name: 'admin unknown', admin: true, build: get('/nope') },
  // The Free key: 60 a minute, then 429s, then a ban.
  ...Array.from({ length: 60 }, (_, i) => ({ name: `free ${i}`, build: get('/v1/pets?limit=1', 'free') })),
  { name: 'free 429', build: get('/v1/pets?limit=1', 'free') },
  { name: 'free 429 conditional', build: get('/v1/pets?limit=1', 'free', 'If-None-Match: "x"\r\n') },
  { name: 'free rate_limit while limited', build: get('/v1/rate_limit', 'free') },
  ...Array.from({ length: 60 }, (_, i) => ({ name: `free refusal ${i}`, build: get('/v1/pets?limit=1', 'free') })),
  { name: 'free banned', build: get('/v1/pets?limit=1', 'free') },
  { name: 'free banned getPet', build: get('/v1/pets/1', 'free') },
  { name: 'free rate_limit banned', build: get('/v1/rate_limit', 'free') },
]

function normalize(text: Buffer, port: number, adminPort?: number): string {
  const split = text.indexOf('\r\n\r\n')
  const head = text.subarray(0, split < 0 ? text.length : split).toString('latin1')
  const body = split < 0 ? Buffer.alloc(0) : text.subarray(split + 4)
  const printable = /^[\t\n\r\x20-\x7e]*$/.test(body.toString('latin1'))
    ? body.toString('utf8')
    : `<${body.length} bytes, hash ${Bun.hash(body).toString(36)}>`
  return [
    ...head
      .split('\r\n')
      .filter((l) => !/^date:/i.test(l))
      .map((l) =>
        l
          .replace(/^(x-request-id: )[0-9a-f]{8}-/i, '$1RID-')
          .replace(/^(x-ratelimit-reset: )\d+/i, '$1T')
          .replace(/^(retry-after: )\d+/i, '$1S')
          .replace(/;t=\d+/, ';t=S')
          .replaceAll(`:${port}`, ':PORT')
          .replaceAll(`:${adminPort}`, ':APORT'),
      ),
    '',
    printable
      .replace(/"reset":\d+/g, '"reset":T')
      .replace(/"bannedUntil":\d+/g, '"bannedUntil":T')
      .replace(/retry after \d+ s/g, 'retry after S s')
      .replaceAll(`:${port}`, ':PORT'),
  ].join('\n')
}

const env: Record<string, string> = { CORS_ORIGINS: 'https://shop.example', ADMIN_PORT: '0' }
const redis = (tree: string): Record<string, string> =>
  values.redis === undefined ? {} : { REDIS_URL: values.redis, REDIS_KEY_PREFIX: `replay:${tree}:${Date.now()}` }
const servers = await Promise.all([
  start(beforeDir, { ...env, ...redis('before') }),
  start(afterDir, { ...env, ...redis('after') }),
])
let differ = 0
const out: string[] = []
try {
  for (const request of corpus) {
    const [before, after] = await Promise.all(
      servers.map(async (server) => {
        const port = request.admin ? (server.adminPort as number) : server.port
        return normalize(await raw(port, request.build(server.keys)), server.port, server.adminPort)
      }),
    )
    out.push(`### ${request.name}\n${before}`)
    if (before === after) continue
    differ++
    console.log(`DIFFERS: ${request.name}\n--- before\n${before?.slice(0, 1500)}\n--- after\n${after?.slice(0, 1500)}`)
  }
} finally {
  for (const server of servers) server.proc.kill()
  await Promise.all(servers.map((server) => server.proc.exited))
  for (const server of servers) rmSync(server.folder, { recursive: true, force: true })
}
if (values.transcript !== undefined) await Bun.write(values.transcript, out.join('\n\n'))
console.log(`${corpus.length} requests, ${differ} differ`)
process.exit(differ ? 1 : 0)
