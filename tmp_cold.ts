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
const store = new SqlitePetStore(db)
const h = { authorization: `Bearer ${secret}`, host: 'localhost:3000' }
for (const [name, pets] of [['cache', new CachedPetStore(store, db)], ['no cache', store], ['cache again', new CachedPetStore(store, db)]] as const) {
  const app = createApp({ pets, keys, logger: createLogger('warn') })
  for (let w = 0; w < 3; w++) {
    const n = 30000, t = Bun.nanoseconds()
    for (let i = 0; i < n; i++) await (await app.handle(new Request(`http://localhost:3000/v1/pets?limit=20&after=${Math.floor(Math.random() * 99980)}`, { headers: h }))).text()
    if (w === 2) console.log(name, ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us/req', Math.round(process.memoryUsage().rss / 1048576), 'MB')
  }
}
