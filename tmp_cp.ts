import { createApp } from './src/app'
import { openDatabase } from './src/db/open'
import { issueKey } from './src/keys/issue'
import { SqliteKeyStore } from './src/keys/store'
import { createLogger } from './src/log'
import { SqlitePetStore } from './src/pets/store'
import { CachedPetStore } from './src/pets/page_cache'
import { mkdtempSync } from 'node:fs'
const db = openDatabase(mkdtempSync('/tmp/cr-') + '/x.sqlite')
const pets = new CachedPetStore(new SqlitePetStore(db), db)
const keys = new SqliteKeyStore(db)
const { secret } = await issueKey(keys, { name: 'b', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
const app = createApp({ pets, keys, logger: createLogger('warn') })
const h = { authorization: `Bearer ${secret}`, host: 'localhost:3000', 'user-agent': 'autocannon', 'content-type': 'application/json' }
const body = '{"name":"Bench","categoryId":3}'
const mode = process.argv[2]
for (let i = 0; i < 60000; i++) {
  if (mode === 'create') await (await app.handle(new Request('http://localhost:3000/v1/pets', { method: 'POST', headers: h, body }))).text()
  else await (await app.handle(new Request('http://localhost:3000/v1/pets?limit=20', { headers: h }))).text()
}
