import { Elysia, type ValidationError } from 'elysia'
import { type Awaitable, andThen } from '../awaitable'
import { StorageFaultError, StoreUnavailableError } from '../db/store_unavailable'
import { type ErrorBody, errorBody, HttpError } from './errors'
import { type ErrorContext, plainErrorHook } from './plain_hook'
import { validationProblems } from './validation_message'

/** How long a client waits before retrying after a storage fault: long enough for an operator's fix to land. */
export const STORAGE_RETRY_AFTER_SECONDS = 5

/** What the error mapper needs from the rest of the app. */
export interface ErrorMapperOptions {
  /** The `Allow` value for a known path, or undefined when no route has that path. */
  allowedMethods(path: string): string | undefined
  /** Called with anything unexpected before it is answered with a bare 500. */
  reportUnexpected(error: unknown): void
  /** Called when a request is answered 503 because the database does not answer or its storage failed. */
  storeUnavailable?(error: StoreUnavailableError): void
  /**
   * Called with the status before any error is answered, headers still open
   * (the quota settlement); the answer waits for it, and an Error body it
   * returns (and the status it sets) is answered instead.
   */
  settle?(
    request: Request,
    set: { headers: Record<string, string | number>; status?: number | string },
    status: number,
  ): Awaitable<ErrorBody | undefined>
  /** Whether `settle` always answers at once (the in-memory limiter): the mapper is then a plain hook (plain_hook.ts). */
  settlesAtOnce: boolean
}

/**
 * The one error mapper: every failure Elysia or our code raises becomes an
 * Error body. Registered first and globally so it also sees validation errors.
 */
export function errorMapper(options: ErrorMapperOptions) {
  const map = ({ code, error, path, request, set }: ErrorContext): Awaitable<ErrorBody> => {
    const failure = toHttpError(code, error, path, options)
    set.status = failure.status
    if (failure.headers) Object.assign(set.headers, failure.headers)
    const body = errorBody(failure.code, failure.message, failure.pointer)
    return andThen(options.settle?.(request, set, failure.status), (instead) => instead ?? body)
  }
  // An error hook that reads as async makes Elysia compile every route as async, failing or not.
  return new Elysia({ name: 'error-mapper' }).onError({ as: 'global' }, plainErrorHook(map, options.settlesAtOnce))
}

function toHttpError(code: string | number, error: unknown, path: string, options: ErrorMapperOptions): HttpError {
  if (error instanceof HttpError) return error
  if (error instanceof StorageFaultError) {
    options.storeUnavailable?.(error)
    return new HttpError(
      'storage_unavailable',
      'The server cannot use its storage right now; nothing was written; retry shortly',
      { headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) } },
    )
  }
  if (error instanceof StoreUnavailableError) {
    options.storeUnavailable?.(error)
    return new HttpError('unavailable', 'The database does not answer; retry shortly', {
      headers: { 'retry-after': '1' },
    })
  }
  switch (code) {
    case 'PARSE': {
      const cause = (error as Error).cause
      if (cause instanceof HttpError) return cause
      return new HttpError('invalid_request', 'Request body is not valid JSON')
    }
    case 'VALIDATION': {
      const validation = error as ValidationError
      // A response that fails its own schema is our bug, never the client's.
      if (validation.type === 'response') break
      const problems = validationProblems(validation)
      const [first] = problems
      return new HttpError('invalid_request', first?.message ?? 'Request is invalid', {
        param: first?.param,
        errors: problems,
      })
    }
    case 'NOT_FOUND': {
      const allow = options.allowedMethods(path)
      if (allow)
        return new HttpError('method_not_allowed', `Method not allowed on ${path}; allowed: ${allow}`, {
          headers: { allow },
        })
      return new HttpError('not_found', `No resource at ${path}`)
    }
  }
  options.reportUnexpected(error)
  return new HttpError('internal_error', 'Internal server error')
}
