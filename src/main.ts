// The only executable. It exports nothing: `bun build --compile --bytecode`
// would otherwise try to serve an exported app itself.
import { runCli } from './cli/commands'
import type { RunningService } from './server'

const argv = process.argv.slice(2)
let service: RunningService | undefined
let stopAsked: NodeJS.Signals | undefined

function stop(signal: NodeJS.Signals, running: RunningService): void {
  process.stderr.write(`${signal}: finishing in-flight requests, then stopping\n`)
  running.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`Stop failed: ${String(error)}\n`)
      process.exit(1)
    },
  )
}

// A supervisor (or a test) may stop the service as soon as it says it listens, so `serve` takes SIGTERM and
// SIGINT from before it starts: one that comes while it starts stops it once it has started. Other commands
// keep the signals' usual meaning.
if (argv[0] === 'serve') {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopAsked !== undefined) return
      stopAsked = signal
      if (service !== undefined) stop(signal, service)
    })
  }
}

const result = await runCli(argv, process.env)
if (typeof result === 'number') {
  process.exitCode = result
} else {
  service = result
  const { reloadTls } = result
  // Over HTTPS, SIGHUP reads the certificate and key again (a renewal); without TLS there is nothing to read
  // again, and a hang-up (a closed terminal, a reload sent by habit) must not stop the service without its
  // graceful stop: it is said and ignored.
  process.on('SIGHUP', () => {
    if (reloadTls === undefined) {
      process.stderr.write('SIGHUP: TLS is off, nothing to reload; ignored (SIGTERM stops the service)\n')
      return
    }
    reloadTls().then(
      () => process.stderr.write('SIGHUP: certificate and key read again; new connections use them\n'),
      (error: unknown) =>
        process.stderr.write(`SIGHUP: kept the certificate in use: ${(error as Error).message ?? String(error)}\n`),
    )
  })
  if (stopAsked !== undefined) stop(stopAsked, result)
}
