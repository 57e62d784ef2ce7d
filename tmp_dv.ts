import { openDatabase } from './src/db/open'
import { mkdtempSync } from 'node:fs'
const db = openDatabase(mkdtempSync('/tmp/dv-') + '/x.sqlite')
const ins = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3)')
db.transaction(() => { for (let i = 1; i <= 100000; i++) ins.run(`pet ${i}`, 1, 'sold') })()
const dv = db.prepare('PRAGMA data_version')
const one = db.prepare('SELECT 1')
const page = db.prepare('SELECT id FROM pets WHERE id > ?1 ORDER BY id LIMIT 21')
for (const [name, f] of [['data_version', () => dv.get()], ['select 1', () => one.get()], ['page ids', () => page.all(5000)]] as const) {
  const n = 50000, t = Bun.nanoseconds(); for (let i = 0; i < n; i++) f(); console.log(name, ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us')
}
db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
const n = 50000, t = Bun.nanoseconds(); for (let i = 0; i < n; i++) dv.get(); console.log('data_version after checkpoint', ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us')
