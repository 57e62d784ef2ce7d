import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { canPin, cpuSeconds } from './processes'

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

/** CPU seconds of every PostgreSQL process (the postmaster and the processes it forked), by PID. */
export function postgresCpu(servicesDir: string): Map<number, number> {
  const postmaster = Number(readFileSync(join(servicesDir, 'postgres.pid'), 'utf8').trim())
  const pids = [postmaster, ...childrenOf(postmaster)]
  const seconds = new Map<number, number>()
  for (const pid of pids) {
    try {
      seconds.set(pid, cpuSeconds(pid))
    } catch {
      // Gone between the listing and the read (a backend that ended).
    }
  }
  return seconds
}

/** PostgreSQL's CPU seconds since `before` (postgresCpu then): a backend started since counts from nothing. */
export function postgresCpuSince(servicesDir: string, before: Map<number, number>): number {
  let seconds = 0
  for (const [pid, now] of postgresCpu(servicesDir)) seconds += now - (before.get(pid) ?? 0)
  return seconds
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** Redis's CPU seconds so far. */
export function redisCpu(servicesDir: string): number {
  return cpuSeconds(Number(readFileSync(join(servicesDir, 'redis.pid'), 'utf8').trim()))
}
