import { createApp } from './src/app'
import { openDatabase } from './src/db/open'
import { issueKey } from './src/keys/issue'
import { SqliteKeyStore } from './src/keys/store'
import { createLogger } from './src/log'
import { SqlitePetStore } from './src/pets/store'
const db = openDatabase(':memory:')
const pets = new (await import('./src/pets/page_cache')).CachedPetStore(new SqlitePetStore(db), db)
for (let i = 0; i < 1000; i++) pets.create({ name: `pet ${i}`, categoryId: 1 })
const keys = new SqliteKeyStore(db)
const { secret } = await issueKey(keys, { name: 'b', plan: 'enterprise', rpm: 1e9, rpd: 1e12 })
const app = createApp({ pets, keys, logger: createLogger('warn') })
const h = { authorization: `Bearer ${secret}`, host: 'localhost:3000', 'user-agent': 'autocannon', accept: '*/*' }
const paths = { hot: '/v1/pets?limit=20', unauth: '/v1/pets?limit=20', health: '/health', nf: '/nope' }
for (const [name, path] of Object.entries(paths)) {
  const headers = name === 'unauth' ? {} : h
  for (let w = 0; w < 3; w++) {
    const n = 20000, t = Bun.nanoseconds()
    for (let i = 0; i < n; i++) { const r = await app.handle(new Request('http://localhost:3000' + path, { headers })); await r.text() }
    if (w === 2) console.log(name, ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us/req')
  }
}
const list = () => pets.list({ limit: 20 })
let t = Bun.nanoseconds(); for (let i = 0; i < 20000; i++) list(); console.log('store.list', ((Bun.nanoseconds() - t) / 20000 / 1000).toFixed(2))
const page = list(); t = Bun.nanoseconds(); for (let i = 0; i < 20000; i++) JSON.stringify(page.pets); console.log('stringify', ((Bun.nanoseconds() - t) / 20000 / 1000).toFixed(2))
t = Bun.nanoseconds(); for (let i = 0; i < 20000; i++) new Request('http://localhost:3000/v1/pets?limit=20', { headers: h }); console.log('new Request', ((Bun.nanoseconds() - t) / 20000 / 1000).toFixed(2))
