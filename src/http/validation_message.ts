import type { TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import type { ValidationError } from 'elysia'
import { NOT_BLANK, PRINTABLE_ASCII } from './validation_patterns'

/**
 * Turns a schema validation failure into one sentence that names the field
 * and states what it must be, derived from the schema itself so the message
 * and the OpenAPI document cannot drift apart.
 */
export function describeValidationError(error: ValidationError): string {
  const first = error.valueError
  if (!first) return 'Request is invalid'
  const field = fieldName(first.path)
  switch (first.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `"${field}" is required`
    case ValueErrorType.ObjectAdditionalProperties:
      return `"${field}" is not an accepted ${error.type === 'query' ? 'query parameter' : 'property'}`
  }
  if (!field) return `Request ${error.type} must be ${describeSchema(first.schema)}`
  return `"${field}" must be ${describeSchema(first.schema)}`
}

function fieldName(path: string): string {
  return path.replace(/^\//, '').replaceAll('/', '.')
}

/** "an integer from 1 to 100", "a string of 1 to 255 characters", "one of a, b". */
function describeSchema(schema: TSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(', ')}`
  switch (schema.type) {
    case 'integer':
      return `an integer${range(schema.minimum, schema.maximum)}`
    case 'number':
      return `a number${range(schema.minimum, schema.maximum)}`
    case 'string': {
      const length =
        schema.minLength !== undefined || schema.maxLength !== undefined
          ? ` of ${schema.minLength ?? 0} to ${schema.maxLength ?? 'any number of'} characters`
          : ''
      const pattern =
        schema.pattern === NOT_BLANK
          ? ', not only white space'
          : schema.pattern === PRINTABLE_ASCII
            ? ' of printable ASCII'
            : ''
      return `a string${length}${pattern}`
    }
    case 'object':
      return 'a JSON object'
  }
  return 'valid'
}

function range(minimum: unknown, maximum: unknown): string {
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`
  if (minimum !== undefined) return ` of at least ${minimum}`
  if (maximum !== undefined) return ` of at most ${maximum}`
  return ''
}
