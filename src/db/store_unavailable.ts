/**
 * The database is out of reach for now (refused, closed, too slow): the
 * request was not wrong and may be retried. Stores throw it; the error
 * mapper answers it with 503 `unavailable`.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/**
 * The storage under SQLite failed a statement (a full disk, a read-only or
 * vanished file, a lock that did not clear, corruption found at run time):
 * the request was not wrong and may succeed later. `fault` is SQLite's code
 * (`SQLITE_FULL`, ...), for the log only; the mapper answers 503
 * `storage_unavailable` with `Retry-After`.
 */
export class StorageFaultError extends StoreUnavailableError {
  override name = 'StorageFaultError'
  constructor(
    readonly fault: string,
    options?: { cause?: unknown },
  ) {
    super(`SQLite storage fault: ${fault}`, options)
  }
}
