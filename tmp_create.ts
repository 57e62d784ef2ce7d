import { createApp } from './src/app'
import { openDatabase } from './src/db/open'
import { issueKey } from './src/keys/issue'
import { SqliteKeyStore } from './src/keys/store'
import { createLogger } from './src/log'
import { SqlitePetStore } from './src/pets/store'
import { CachedPetStore } from './src/pets/page_cache'
import { parseJsonBody } from './src/http/json_body'
import { mkdtempSync } from 'node:fs'
const dir = mkdtempSync('/tmp/cr-')
const db = openDatabase(dir + '/x.sqlite')
const store = new SqlitePetStore(db)
const pets = new CachedPetStore(store, db)
const keys = new SqliteKeyStore(db)
const { secret } = await issueKey(keys, { name: 'b', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
const app = createApp({ pets, keys, logger: createLogger('warn') })
const h = { authorization: `Bearer ${secret}`, host: 'localhost:3000', 'user-agent': 'autocannon', 'content-type': 'application/json' }
const body = '{"name":"Bench","categoryId":3}'
async function time(name: string, n: number, f: () => unknown) {
  for (let w = 0; w < 3; w++) { const t = Bun.nanoseconds(); for (let i = 0; i < n; i++) await f(); if (w === 2) console.log(name.padEnd(20), ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us') }
}
await time('create via app', 5000, async () => (await app.handle(new Request('http://localhost:3000/v1/pets', { method: 'POST', headers: h, body }))).text())
await time('store.create', 5000, () => store.create({ name: 'Bench', categoryId: 3 }))
await time('parseJsonBody', 20000, () => parseJsonBody({ request: new Request('http://localhost:3000/v1/pets', { method: 'POST', headers: h, body }) }))
await time('JSON.parse plain', 100000, () => JSON.parse(body))
await time('JSON.parse reviver', 100000, () => JSON.parse(body, (k, v, c) => v))
