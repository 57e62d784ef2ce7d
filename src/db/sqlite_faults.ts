import { statSync } from 'node:fs'
import { StorageFaultError } from './store_unavailable'

// SQLite's result codes that say the storage failed, not the statement: the extended codes start with these.
const STORAGE_FAULTS = [
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CANTOPEN',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_PROTOCOL',
]

/** `error` as a StorageFaultError when SQLite says the storage failed; else `error` itself. */
export function asStorageFault(error: unknown): unknown {
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && STORAGE_FAULTS.some((fault) => code.startsWith(fault)))
    return new StorageFaultError(code, { cause: error })
  return error
}

/**
 * Tells whether the database file is still the one that was opened: an
 * operator who deletes or replaces it (or its folder) while the service runs
 * would otherwise see writes acknowledged into a file no one can open again.
 * Always true for `:memory:` (and an empty name).
 */
export function fileIdentity(path: string): () => boolean {
  if (path === '' || path === ':memory:') return () => true
  const opened = statSync(path)
  return () => {
    try {
      const now = statSync(path)
      return now.ino === opened.ino && now.dev === opened.dev
    } catch {
      return false
    }
  }
}
