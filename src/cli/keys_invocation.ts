import type { ApiKey, KeyStore } from '../keys/store'
import { type Io, parseCommandLine } from './command_line'

/** The key store a command works on, and how to release it (the service's Stores are one). */
export interface OpenedKeys {
  keys: KeyStore
  close(): Promise<void>
}

/** What the keys commands work with besides their arguments. */
export interface KeysCommandContext {
  /** Called only once the arguments are known to be good, with the `--db` path when one was given. */
  openStores(dbPath: string | undefined): Promise<OpenedKeys>
  /**
   * With a shared limiter (REDIS_URL): applies a key's quota reset there at
   * once; false when it cannot be reached (the servers then apply it).
   */
  resetSharedQuota?(key: ApiKey): Promise<boolean>
  /** Milliseconds since the epoch, for durations; `Date.now` when absent. */
  clock?: () => number
  io: Io
}

/** Every option a `keys` command may take; each command names the ones it does (KeysCommand.options). */
const OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  name: { type: 'string' },
  plan: { type: 'string' },
  rpm: { type: 'string' },
  rpd: { type: 'string' },
  expires: { type: 'string' },
  'read-only': { type: 'boolean' },
  grace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const
export type Option = keyof typeof OPTIONS
type Values = ReturnType<typeof parseKeysArguments>['values']

/** What a command runs with: its parsed arguments, the store (opened on first use), where to print, the time. */
export interface Invocation {
  values: Values
  positionals: string[]
  store(): Promise<KeyStore>
  context: KeysCommandContext
  io: Io
  now: number
  /** Prints the key as JSON on stdout with --json. */
  printJson(key: ApiKey): void
}

/** One `keys` command: its name, the options it takes besides --db and --json, its usage, and what it does. */
export interface KeysCommand {
  name: string
  options: readonly Option[]
  /** What follows `keys NAME` in the usage, before `[--json] [--db PATH]`. */
  usage: string
  run(invocation: Invocation): Promise<number>
}

/** A `keys` command's arguments after its name: the options and the positionals, strictly parsed. */
export function parseKeysArguments(args: string[]) {
  return parseCommandLine(args, OPTIONS)
}
