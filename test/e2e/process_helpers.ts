import { join } from 'node:path'
import { BUN_HEAD_SIZE_FLAG } from '../../src/http/limits'
import { tempDir } from '../helpers'

const ROOT = join(import.meta.dir, '..', '..')
const MAIN = join(ROOT, 'src', 'main.ts')

/** The outcome of one CLI run. */
export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** How to start the program: `bun src/main.ts` unless a test says otherwise (the compiled binary). */
export interface Program {
  command: string[]
  cwd: string
}

/** The source tree run by Bun, as `npm start` does. */
export const FROM_SOURCE: Program = { command: [process.execPath, BUN_HEAD_SIZE_FLAG, MAIN], cwd: ROOT }

/** Runs the program with these arguments, as a user would, and waits for it. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  program: Program = FROM_SOURCE,
): Promise<CliResult> {
  const proc = Bun.spawn([...program.command, ...args], {
    cwd: program.cwd,
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, stdout, stderr }
}

/**
 * Makes an Enterprise key in `db` with limits no test run reaches (a million
 * a minute) and returns it: for tests that load the server, where the first
 * key it prints is a Free one (60 a minute).
 */
export async function createUnlimitedKey(db: string): Promise<string> {
  const made = await runCli([
    'keys',
    'create',
    '--plan',
    'enterprise',
    '--rpm',
    '1000000',
    '--rpd',
    '1000000000',
    '--json',
    '--db',
    db,
  ])
  if (made.code !== 0) throw new Error(`keys create failed: ${made.stderr}`)
  return JSON.parse(made.stdout).key
}

/** A `serve` process that has said it is listening. */
export interface ServerProcess {
  url: string
  proc: ReturnType<typeof Bun.spawn>
  /** Everything it wrote to stderr so far. */
  stderr(): string
  /** SIGTERM, then its exit code. */
  stop(): Promise<number>
}

/** Starts `serve` (with `args`) on a free port and waits (at most `timeoutMs`) for its "listening" line. */
export async function startServer(
  env: Record<string, string>,
  program: Program = FROM_SOURCE,
  timeoutMs = 10_000,
  args: string[] = [],
): Promise<ServerProcess> {
  const proc = Bun.spawn([...program.command, 'serve', ...args], {
    cwd: program.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let text = ''
  const reader = proc.stderr.getReader()
  const decoder = new TextDecoder()
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      text += decoder.decode(value, { stream: true })
    }
  })()
  const deadline = Date.now() + timeoutMs
  const listening = /listening on (https?:\/\/\S+)/
  let match = listening.exec(text)
  while (!match) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill()
      throw new Error(`server did not start (exit ${proc.exitCode}):\n${text}`)
    }
    await Bun.sleep(20)
    match = listening.exec(text)
  }
  return {
    url: match[1]!,
    proc,
    stderr: () => text,
    async stop() {
      proc.kill('SIGTERM')
      const code = await proc.exited
      await pump
      return code
    },
  }
}

/** The key a first start printed on stderr. */
export function printedKey(stderr: string): string {
  const match = /^\s+(ask_[A-Za-z0-9_-]{43})$/m.exec(stderr)
  if (!match) throw new Error(`no key printed in:\n${stderr}`)
  return match[1]!
}

/** A server on a fresh database in its own folder, with the key its first start printed. */
export interface FreshServer {
  server: ServerProcess
  key: string
  /** The database file. */
  db: string
  /** The folder holding it, removed by `cleanup`. */
  dir: string
  /** Stops the server (if still running) and removes the folder. */
  cleanup(): Promise<void>
}

/** Starts `serve` on a new database in a temporary folder. */
export async function startFreshServer(
  env: Record<string, string> = {},
  prefix = 'animal-store-',
): Promise<FreshServer> {
  const workspace = tempDir(prefix)
  const db = join(workspace.dir, 'store.sqlite')
  const server = await startServer({ DATABASE_PATH: db, ...env })
  return {
    server,
    key: printedKey(server.stderr()),
    db,
    dir: workspace.dir,
    async cleanup() {
      if (server.proc.exitCode === null) await server.stop()
      workspace.cleanup()
    },
  }
}

/** `POST /v1/pets` with a JSON body. */
export function postPet(url: string, key: string, pet: unknown): Promise<Response> {
  return fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(pet),
  })
}

/** Sends raw bytes and resolves with what came back once the server closes the connection. */
export function rawExchange(
  port: number,
  text: string,
  timeoutMs = 20_000,
): Promise<{ response: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    let response = ''
    const timer = setTimeout(
      () => reject(new Error(`no close within ${timeoutMs} ms; got ${response.slice(0, 80)}`)),
      timeoutMs,
    )
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open: (socket) => {
          socket.write(text)
        },
        data: (_socket, data) => {
          response += data.toString()
        },
        close: () => {
          clearTimeout(timer)
          resolve({ response, closedByServer: true })
        },
        error: (_socket, error) => reject(error),
      },
    })
  })
}
