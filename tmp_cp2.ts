import { createApp } from './src/app'
import { openDatabase } from './src/db/open'
import { issueKey } from './src/keys/issue'
import { SqliteKeyStore } from './src/keys/store'
import { createLogger } from './src/log'
import { SqlitePetStore } from './src/pets/store'
import { CachedPetStore } from './src/pets/page_cache'
import { mkdtempSync } from 'node:fs'
const db = openDatabase(mkdtempSync('/tmp/cold-') + '/x.sqlite')
const ins = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3)')
db.transaction(() => { for (let i = 1; i <= 100000; i++) ins.run(`pet ${i}`, 1 + (i % 97), ['available', 'pending', 'sold'][i % 3]!) })()
const keys = new SqliteKeyStore(db)
const { secret } = await issueKey(keys, { name: 'b', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
const app = createApp({ pets: new CachedPetStore(new SqlitePetStore(db), db), keys, logger: createLogger('warn') })
const h = { authorization: `Bearer ${secret}`, host: 'localhost:3000' }
for (let i = 0; i < 100000; i++) await (await app.handle(new Request(`http://localhost:3000/v1/pets?limit=20&after=${Math.floor(Math.random() * 99980)}`, { headers: h }))).text()
