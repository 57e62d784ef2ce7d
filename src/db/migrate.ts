import type { Database } from 'bun:sqlite'
import type { Migration } from './migrations'

/**
 * Applies the migrations above the database's `user_version`, each in its own
 * transaction with the version bump, so running it twice changes nothing.
 * Returns the versions it applied.
 */
export function migrate(db: Database, migrations: readonly Migration[]): number[] {
  const applied: number[] = []
  const current = () => (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version
  for (const migration of migrations) {
    db.transaction(() => {
      // Checked inside the (immediate) transaction: two processes starting together apply each step once.
      if (migration.version <= current()) return
      db.exec(migration.sql)
      db.exec(`PRAGMA user_version = ${migration.version}`)
      applied.push(migration.version)
    }).immediate()
  }
  return applied
}
