import { join } from 'node:path'
import { canPin } from './processes'

const SERVICES = join(import.meta.dir, '..', '..', '.ci', 'services')

/**
 * Starts throwaway PostgreSQL and Redis servers in `dir` with `.ci/services`
 * (the script CI uses), on CPU `cpu` when pinning is possible: 0, beside the
 * service, by default. Returns DATABASE_URL and REDIS_URL.
 */
export function startSharedServices(dir: string, cpu = 0): Record<string, string> {
  const command = ['bash', SERVICES, 'start', dir]
  const started = Bun.spawnSync(canPin ? ['taskset', '-c', String(cpu), ...command] : command, { stderr: 'inherit' })
  if (started.exitCode !== 0) throw new Error('PostgreSQL and Redis could not be started (.ci/services start)')
  const urls: Record<string, string> = {}
  for (const [, name, value] of started.stdout.toString().matchAll(/^export (\w+)=(\S+)$/gm)) urls[name!] = value!
  return urls
}

/** Stops both servers, by the PIDs `.ci/services` recorded. */
export function stopSharedServices(dir: string): void {
  Bun.spawnSync(['bash', SERVICES, 'stop', dir], { stderr: 'inherit' })
}
