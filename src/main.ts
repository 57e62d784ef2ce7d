// The only executable. It exports nothing: `bun build --compile --bytecode`
// would otherwise try to serve an exported app itself.
import { runCli } from './cli'

const result = await runCli(process.argv.slice(2), process.env)
if (typeof result === 'number') {
  process.exitCode = result
} else {
  const service = result
  const { reloadTls } = service
  // Over HTTPS, SIGHUP reads the certificate and key again (a renewal); without TLS it keeps its usual meaning.
  if (reloadTls !== undefined) {
    process.on('SIGHUP', () => {
      reloadTls().then(
        () => process.stderr.write('SIGHUP: certificate and key read again; new connections use them\n'),
        (error: unknown) =>
          process.stderr.write(`SIGHUP: kept the certificate in use: ${(error as Error).message ?? String(error)}\n`),
      )
    })
  }
  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      process.stderr.write(`${signal}: finishing in-flight requests, then stopping\n`)
      service.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`Stop failed: ${String(error)}\n`)
          process.exit(1)
        },
      )
    })
  }
}
