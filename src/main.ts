// The only executable. It exports nothing: `bun build --compile --bytecode`
// would otherwise try to serve an exported app itself.
import { runCli } from './cli'

const result = await runCli(process.argv.slice(2), process.env)
if (typeof result === 'number') {
  process.exitCode = result
} else {
  const service = result
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void service.stop().then(() => process.exit(0))
    })
  }
}
