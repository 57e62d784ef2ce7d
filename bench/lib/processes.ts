import { readFileSync } from 'node:fs'
import type { Subprocess } from 'bun'

/** Whether `taskset` exists, so server and load generator can sit on different CPUs. */
export const canPin = Bun.which('taskset') !== null && navigator.hardwareConcurrency >= 2

/** Pins this process (the load generator) to CPU 1; the servers go on CPU 0. */
export function pinSelf(): void {
  if (canPin) Bun.spawnSync(['taskset', '-a', '-p', '-c', '1', String(process.pid)], { stdout: 'ignore' })
}

/** A process the bench started, stopped by its PID. */
export interface Started {
  pid: number
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  stop(): Promise<void>
}

/** Spawns `command` on CPU 0 (when pinning is possible) and waits for `ready` to match its output. */
export async function spawnPinned(
  command: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<Started & { match: RegExpExecArray }> {
  const proc = Bun.spawn(canPin ? ['taskset', '-c', '0', ...command] : command, {
    env: { ...process.env, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let output = ''
  const decoder = new TextDecoder()
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
  }
  void pump(proc.stdout)
  void pump(proc.stderr)
  const deadline = Date.now() + timeoutMs
  let match = ready.exec(output)
  while (!match) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`${command.join(' ')} did not start:\n${output}`)
    }
    await Bun.sleep(20)
    match = ready.exec(output)
  }
  return {
    pid: proc.pid,
    proc,
    match,
    async stop() {
      proc.kill('SIGTERM')
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(15_000).then(() => false)])
      if (!exited) {
        proc.kill('SIGKILL')
        await proc.exited
      }
    },
  }
}

/** Resident memory of a process in bytes, from /proc. */
export async function rssOf(pid: number): Promise<number | undefined> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text()
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]
    return kb === undefined ? undefined : Number(kb) * 1024
  } catch {
    return undefined
  }
}

/** The kernel's clock ticks per second, the unit of the CPU times in /proc/<pid>/stat. */
export const CLOCK_TICKS_PER_SECOND = Number(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout.toString().trim()) || 100

/** CPU time a process has used so far, user + system, all its threads, in seconds (from /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
}
