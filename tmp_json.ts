import { openDatabase } from './src/db/open'
import { mkdtempSync } from 'node:fs'
const db = openDatabase(mkdtempSync('/tmp/js-') + '/x.sqlite')
const ins = db.prepare('INSERT INTO pets (name, category_id, status) VALUES (?1, ?2, ?3)')
db.transaction(() => { for (let i = 1; i <= 100000; i++) ins.run(`pet ${i}`, 1 + (i % 97), ['available', 'pending', 'sold'][i % 3]!) })()
const all = db.prepare('SELECT id, name, category_id AS categoryId, status FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2')
class Row { id!: number; name!: string; categoryId!: number; status!: string }
const asRow = db.prepare('SELECT id, name, category_id AS categoryId, status FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2').as(Row)
const json = db.prepare(`SELECT json_group_array(json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status) ORDER BY id) AS json, count(*) AS n, max(id) AS lastId FROM (SELECT id, name, category_id, status FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2)`)
const values = db.prepare('SELECT id, name, category_id, status FROM pets WHERE id > ?1 ORDER BY id LIMIT ?2')
function time(name: string, f: (after: number) => unknown) {
  for (let w = 0; w < 3; w++) { const n = 20000; const t = Bun.nanoseconds(); for (let i = 0; i < n; i++) f((i * 7919) % 99000); if (w === 2) console.log(name.padEnd(24), ((Bun.nanoseconds() - t) / n / 1000).toFixed(2), 'us') }
}
time('all + stringify', (a) => JSON.stringify(all.all(a, 21)))
time('as(Row) + stringify', (a) => JSON.stringify(asRow.all(a, 21)))
time('values + manual', (a) => { const rows = values.values(a, 21) as any[][]; let s = '['; for (const r of rows) s += `{"id":${r[0]},"name":${JSON.stringify(r[1])},"categoryId":${r[2]},"status":"${r[3]}"},`; return s }
)
time('json in sqlite', (a) => json.get(a, 21))
console.log(json.get(0, 3))
