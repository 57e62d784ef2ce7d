import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Glob } from 'bun'
import { boundLimit } from '../../src/db/bound_limit'

const SRC = join(import.meta.dir, '..', '..', 'src')
/** A LIMIT that is a bare SQLite parameter; `${...}` is a template's value (PostgreSQL's tagged queries), not one. */
const SQLITE_PARAMETER_LIMIT = /\bLIMIT\s+(\?|[:@]\w|\$(?!\{))/g

describe('boundLimit', () => {
  test('reads as many rows as the value bound, run after run of one statement', () => {
    const db = new Database(':memory:', { strict: true })
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)')
    db.exec(
      'WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < 50) INSERT INTO t SELECT id FROM n',
    )
    const page = db.prepare<{ id: number }, [number, number]>(
      `SELECT id FROM t WHERE id > ?1 ORDER BY id ${boundLimit('?2')}`,
    )
    for (const [after, limit] of [
      [0, 3],
      [10, 1],
      [10, 21],
      [45, 21],
      [0, 0],
    ] as const) {
      const ids = page.all(after, limit).map((row) => row.id)
      expect(ids).toEqual(Array.from({ length: Math.min(limit, 50 - after) }, (_, i) => after + 1 + i))
    }
    const anonymous = db.prepare<{ id: number }, [number, number]>(
      `SELECT id FROM t WHERE id > ? ORDER BY id ${boundLimit('?')}`,
    )
    expect(anonymous.all(48, 5).map((row) => row.id)).toEqual([49, 50])
    db.close()
  })

  test('is how every SQLite statement in src/ binds its LIMIT (a bare `LIMIT ?`, `?2`, `:n`, `@n` or `$n` is prepared again on every run)', () => {
    const bare: string[] = []
    for (const file of new Glob('**/*.ts').scanSync(SRC)) {
      // PostgreSQL's statements ($1) are planned apart from their values; this one's doc names the bare form.
      if (file.includes('postgres') || file === 'db/bound_limit.ts') continue
      const text = readFileSync(join(SRC, file), 'utf8')
      for (const match of text.matchAll(SQLITE_PARAMETER_LIMIT)) bare.push(`${file}: ${match[0]}`)
    }
    expect(bare).toEqual([])
  })
})
