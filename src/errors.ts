import { type Static, Type } from '@sinclair/typebox'
import { Elysia, type ValidationError } from 'elysia'
import { describeValidationError } from './http/validation_message'
import { redactApiKeys } from './keys/api_key'

/** The Error object every failure answers with: `status` equals the HTTP status. */
export const ErrorSchema = Type.Object(
  {
    code: Type.String({
      description: 'Machine-readable error code, e.g. invalid_request',
      examples: ['invalid_request'],
    }),
    message: Type.String({ description: 'What went wrong, naming the offending field, parameter or header' }),
    status: Type.Integer({ minimum: 400, maximum: 599, description: 'The HTTP status code of the response' }),
  },
  { additionalProperties: false },
)
export type ErrorBody = Static<typeof ErrorSchema>

/** Builds an Error body; key order follows the specification. A key-shaped text in the message is redacted. */
export function errorBody(status: number, code: string, message: string): ErrorBody {
  return { code, message: redactApiKeys(message), status }
}

/** A failure that knows its HTTP status, its Error code and any headers it needs. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

/** What the error mapper needs from the rest of the app. */
export interface ErrorMapperOptions {
  /** The `Allow` value for a known path, or undefined when no route has that path. */
  allowedMethods(path: string): string | undefined
  /** Called with anything unexpected before it is answered with a bare 500. */
  reportUnexpected(error: unknown): void
}

/**
 * The one error mapper: every failure Elysia or our code raises becomes an
 * Error body. Registered first and globally so it also sees validation errors.
 */
export function errorMapper(options: ErrorMapperOptions) {
  return new Elysia({ name: 'error-mapper' }).onError({ as: 'global' }, ({ code, error, path, set }) => {
    const failure = toHttpError(code, error, path, options)
    set.status = failure.status
    if (failure.headers) Object.assign(set.headers, failure.headers)
    return errorBody(failure.status, failure.code, failure.message)
  })
}

function toHttpError(code: string | number, error: unknown, path: string, options: ErrorMapperOptions): HttpError {
  if (error instanceof HttpError) return error
  switch (code) {
    case 'PARSE': {
      const cause = (error as Error).cause
      if (cause instanceof HttpError) return cause
      return new HttpError(400, 'invalid_request', 'Request body is not valid JSON')
    }
    case 'VALIDATION': {
      const validation = error as ValidationError
      // A response that fails its own schema is our bug, never the client's.
      if (validation.type === 'response') break
      return new HttpError(400, 'invalid_request', describeValidationError(validation))
    }
    case 'NOT_FOUND': {
      const allow = options.allowedMethods(path)
      if (allow)
        return new HttpError(405, 'method_not_allowed', `Method not allowed on ${path}; allowed: ${allow}`, { allow })
      return new HttpError(404, 'not_found', `No resource at ${path}`)
    }
  }
  options.reportUnexpected(error)
  return new HttpError(500, 'internal_error', 'Internal server error')
}
