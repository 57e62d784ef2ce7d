import { isPlan, type Limits, limitsFor, PLANS, type Plan } from '../keys/plans'
import { UsageError } from './command_line'
import { parseDuration, parseExpiry } from './time_text'

/** The positional arguments of a command that takes none beyond `count`. */
export function expectPositionals(positionals: string[], count: number): void {
  if (positionals.length !== count) throw new UsageError(`Unexpected argument "${positionals[count]}"`)
}

/** The one key ID a command takes. */
export function idArgument(positionals: string[]): number {
  if (positionals.length !== 1) throw new UsageError('Give exactly one key ID')
  return positiveInteger('ID', positionals[0]!)
}

/** A key ID and one more value (`what` says which, for the message). */
export function idAndValue(positionals: string[], what: string): [number, string] {
  if (positionals.length !== 2) throw new UsageError(`Give a key ID and ${what}`)
  return [positiveInteger('ID', positionals[0]!), positionals[1]!]
}

/** `--plan`, required. */
export function planOption(value: string | undefined): Plan {
  if (value === undefined) throw new UsageError(`--plan is required: one of ${PLANS.join(', ')}`)
  if (!isPlan(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}, got "${value}"`)
  return value
}

/** The limits of `plan`: its own, or `--rpm` and `--rpd` for Enterprise (required there, refused elsewhere). */
export function limitsOption(plan: Plan, values: { rpm?: string; rpd?: string }): Limits {
  const custom = {
    rpm: values.rpm === undefined ? undefined : positiveInteger('--rpm', values.rpm),
    rpd: values.rpd === undefined ? undefined : positiveInteger('--rpd', values.rpd),
  }
  return asUsage(() => limitsFor(plan, custom))
}

/** `--name`: 1 to 255 characters, not only white space; `default` when absent. */
export function nameOption(value: string | undefined): string {
  const name = value ?? 'default'
  if (name.trim() === '' || name.length > 255) throw new UsageError('--name must be 1 to 255 characters')
  return name
}

/** A WHEN (`what` names the option or argument) as an ISO time after `now`. */
export function expiryArgument(what: string, text: string, now: number): string {
  return new Date(asUsage(() => parseExpiry(text, now), what)).toISOString()
}

/** A DURATION in milliseconds. */
export function durationArgument(what: string, text: string): number {
  return asUsage(() => parseDuration(text), what)
}

/** The value `parse` gives, or its RangeError as a usage error (prefixed with the option it came from). */
function asUsage<T>(parse: () => T, what?: string): T {
  try {
    return parse()
  } catch (error) {
    const message = (error as Error).message
    throw new UsageError(what === undefined ? message : `${what}: ${message}`)
  }
}

function positiveInteger(what: string, value: string): number {
  const number = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(number)) throw new UsageError(`${what} must be a positive integer, got "${value}"`)
  return number
}
