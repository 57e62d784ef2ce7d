import { afterEach } from 'bun:test'

/** Runs a system command (mount, mkfs.ext4, ...), throwing with its stderr when it fails; returns its stdout. */
export function run(command: string[]): string {
  const done = Bun.spawnSync(command, { stderr: 'pipe', stdout: 'pipe' })
  if (done.exitCode !== 0) throw new Error(`${command.join(' ')} failed: ${done.stderr.toString()}`)
  return done.stdout.toString()
}

/**
 * Where a test that mounts needs root (and CI has it): refuses to skip in CI,
 * warns loudly elsewhere. Returns whether the tests may run.
 */
export function requireInCi(available: boolean, what: string): boolean {
  if (available) return true
  if (process.env.CI) throw new Error(`CI must be able to ${what}`)
  console.warn(`SKIPPED: these tests need to ${what} (run them as root)`)
  return false
}

/** Steps to undo after each test of the file, last first (unmount, remove, stop). */
export function undoAfterEach(): (() => unknown)[] {
  const undo: (() => unknown)[] = []
  afterEach(async () => {
    for (const step of undo.splice(0).reverse()) await step()
  })
  return undo
}
