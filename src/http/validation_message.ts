import type { TSchema } from '@sinclair/typebox'
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors'
import type { ValidationError } from 'elysia'
import type { ErrorDetail } from './errors'
import { NOT_BLANK, PRINTABLE_ASCII } from './validation_patterns'

/** A schema's failing value as TypeBox reports it (Elysia's `valueError` and each of `all`). */
type Violation = Pick<ValueError, 'type' | 'path' | 'schema'>

/**
 * Every field a schema validation failure found at fault (`param`), each with
 * one sentence that names it and states what it must be, derived from the
 * schema itself so the messages and the OpenAPI document cannot drift apart.
 * In the validator's order (unknown properties first, then the schema's),
 * each field once: the validator may report a field twice (a missing one as
 * missing and as not a string), and the sentence states all its rules. The
 * first is the failure's `message` and `param`, as before the list existed.
 */
export function validationProblems(error: ValidationError): ErrorDetail[] {
  const where = error.type
  const violations: Violation[] = error.all.length > 0 ? error.all : error.valueError ? [error.valueError] : []
  const problems: ErrorDetail[] = []
  const seen = new Set<string>()
  for (const violation of violations) {
    const problem = describeViolation(violation, where)
    if (seen.has(problem.param)) continue
    seen.add(problem.param)
    problems.push(problem)
  }
  return problems
}

function describeViolation(violation: Violation, where: string): ErrorDetail {
  const field = fieldName(violation.path)
  const param = field === '' ? where : where === 'headers' ? headerName(field) : field
  // The message is as it always was (a header named as Elysia gives it); `param` spells a header as people do.
  const named = `"${field}"`
  switch (violation.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return { param, message: `${named} is required` }
    case ValueErrorType.ObjectAdditionalProperties:
      return {
        param,
        message: `${named} is not an accepted ${where === 'query' ? 'query parameter' : 'property'}`,
      }
  }
  if (!field) return { param, message: `Request ${where} must be ${describeSchema(violation.schema)}` }
  return { param, message: `${named} must be ${describeSchema(violation.schema)}` }
}

function fieldName(path: string): string {
  return path.replace(/^\//, '').replaceAll('/', '.')
}

/** A header as people spell it (Elysia gives it lower-cased): `Idempotency-Key`. */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
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
