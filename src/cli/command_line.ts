import { type ParseArgsConfig, parseArgs } from 'node:util'

/** Where a command writes: data on `out`, everything for people on `err`. */
export interface Io {
  out(line: string): void
  err(line: string): void
}

/** Bad arguments; the caller prints the usage and exits EXIT_USAGE. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** Exit status for bad arguments or a bad environment variable. */
export const EXIT_USAGE = 2

/** Exit status of a command that understood its arguments but could not do it (unknown id, revoked key). */
export const EXIT_FAILED = 1

/** `parseArgs`, strict and with positionals, whose complaints are UsageErrors. */
export function parseCommandLine<T extends ParseArgsConfig['options']>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}
