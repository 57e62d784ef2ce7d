/**
 * The database is out of reach for now (refused, closed, too slow): the
 * request was not wrong and may be retried. Stores throw it; the error
 * mapper answers it with 503 `unavailable`.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}
