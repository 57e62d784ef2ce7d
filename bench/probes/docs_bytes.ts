// The bytes a browser downloads for /docs: the page, every asset it names and
// /openapi.json, asked with a browser's Accept-Encoding, in one process
// (`app.handle`, so the bytes are the body as sent). Three visits: the first
// (brotli 11 not made yet), one once brotli is made, and a return visit that
// revalidates with If-None-Match. `--tree` measures another checkout (a
// "before" tree made with `git worktree add --detach /tmp/before <rev>`).
//
//   bun bench/probes/docs_bytes.ts [--tree DIR]
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { tree: { type: 'string', default: join(import.meta.dir, '..', '..') } } })
const root = resolve(values.tree)
const { createApp } = await import(`${root}/src/app.ts`)
const { openDatabase } = await import(`${root}/src/db/sqlite.ts`)
const { SqliteKeyStore } = await import(`${root}/src/keys/sqlite_store.ts`)
const { SqlitePetStore } = await import(`${root}/src/pets/sqlite_store.ts`)
const { createLogger } = await import(`${root}/src/log.ts`)
const db = openDatabase(':memory:')
const app = createApp({ pets: new SqlitePetStore(db), keys: new SqliteKeyStore(db), logger: createLogger('silent') })
const BROWSER = { 'accept-encoding': 'gzip, deflate, br, zstd' }

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await app.handle(new Request(`http://localhost${path}`, { headers: { ...BROWSER, ...headers } }))
  const bytes = (await response.arrayBuffer()).byteLength
  return {
    path,
    status: response.status,
    coding: response.headers.get('content-encoding') ?? 'none',
    bytes,
    etag: response.headers.get('etag'),
  }
}

async function visit(name: string, tags = new Map<string, string>()) {
  const page = await get('/docs', tags.has('/docs') ? { 'if-none-match': tags.get('/docs')! } : {})
  const html = page.status === 200 ? await (await app.handle(new Request('http://localhost/docs'))).text() : ''
  const assets = [...html.matchAll(/(?:href|src)="(docs\/[^"]+)"/g)].map((match) => `/${match[1]}`)
  const seen = [page]
  for (const path of [...assets, '/openapi.json']) {
    const tag = tags.get(path)
    seen.push(await get(path, tag ? { 'if-none-match': tag } : {}))
  }
  console.log(`${name}:`)
  for (const { path, status, coding, bytes } of seen)
    console.log(`  ${status} ${coding.padEnd(4)} ${String(bytes).padStart(9)}  ${path}`)
  console.log(`  total ${seen.reduce((sum, { bytes }) => sum + bytes, 0)} bytes of bodies`)
  return new Map(seen.filter(({ etag }) => etag).map(({ path, etag }) => [path, etag!]))
}

await visit('first visit')
// Brotli 11 of the Swagger UI bundle takes seconds on zlib's threads; wait until it is served.
for (let i = 0; i < 300; i++) {
  const html = await (await app.handle(new Request('http://localhost/docs'))).text()
  const bundle = /src="(docs\/swagger-ui-bundle[^"]*)"/.exec(html)?.[1]
  if (bundle === undefined || (await get(`/${bundle}`, { 'accept-encoding': 'br' })).coding === 'br') break
  await Bun.sleep(100)
}
const tags = await visit('a visit once brotli is made')
await visit('a return visit (If-None-Match with the tags seen)', tags)
