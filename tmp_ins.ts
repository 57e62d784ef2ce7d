import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { migrate } from './src/db/migrate'
import { migrations } from './src/db/migrations'
function setup(pragmas: string[]) {
  const db = new Database(mkdtempSync('/tmp/ins-') + '/x.sqlite', { create: true, strict: true })
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL')
  for (const p of pragmas) db.exec(p)
  migrate(db, migrations)
  return db
}
const variants: Record<string, string[]> = {
  default: [],
  mmap: ['PRAGMA mmap_size=268435456'],
  cache: ['PRAGMA cache_size=-65536'],
  'no-autockpt': ['PRAGMA wal_autocheckpoint=0'],
  'mmap+cache': ['PRAGMA mmap_size=268435456', 'PRAGMA cache_size=-65536'],
  exclusive: ['PRAGMA locking_mode=EXCLUSIVE'],
}
for (const [name, pragmas] of Object.entries(variants)) {
  const db = setup(pragmas)
  const ins = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3) RETURNING id, name, category_id AS categoryId, status")
  for (let i = 0; i < 2000; i++) ins.get('warm', 1, 'available')
  const n = 30000, t = Bun.nanoseconds()
  for (let i = 0; i < n; i++) ins.get('Bench', 3, 'available')
  console.log(name.padEnd(12), ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us/insert')
}
