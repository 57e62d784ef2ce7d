import { redactApiKeys } from './key_shape'

/** How much the service logs, from everything to nothing (LOG_LEVEL). */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

/** Structured logging: one JSON object per line. Never give it a secret. */
export interface Logger {
  /** Whether lines at `level` are written, so a caller can skip building them. */
  enabled(level: 'info' | 'warn' | 'error'): boolean
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

/** A logger that writes lines at `level` and above to `write` (stdout by default), key-shaped text redacted. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const threshold = RANK[level]
  const at = (name: 'info' | 'warn' | 'error') =>
    RANK[name] < threshold
      ? () => {}
      : (msg: string, fields?: Record<string, unknown>) =>
          write(redactApiKeys(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields })))
  return { enabled: (name) => RANK[name] >= threshold, info: at('info'), warn: at('warn'), error: at('error') }
}

/** The fields that describe an error in a log line, stack included (logs are not responses). */
export function errorFields(error: unknown): Record<string, unknown> {
  return error instanceof Error
    ? { error: error.message, name: error.name, stack: error.stack }
    : { error: String(error) }
}
