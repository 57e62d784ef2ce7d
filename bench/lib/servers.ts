import { writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { BUN_HEAD_SIZE_FLAG } from '../../src/http/limits'
import { PEER_READY, type Peer } from './peers'
import { type Started, spawnPinned } from './processes'

/** A server the bench started, with the address to drive. */
export type Running = Started & { url: string }

/**
 * The servers of one bench run, all pinned to the servers' CPU and stopped
 * by PID: the service, the raw baseline, the Elysia floor, the peers.
 */
export class BenchServers {
  readonly #running = new Set<Started>()

  constructor(
    private readonly root: string,
    private readonly work: string,
  ) {}

  /** The service from source, with LOG_LEVEL=warn and TRUST_PROXY=on, and `env` (its store). */
  async service(env: Record<string, string>): Promise<Running> {
    const started = await this.#start(
      [process.execPath, BUN_HEAD_SIZE_FLAG, join(this.root, 'src/main.ts'), 'serve'],
      { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', TRUST_PROXY: 'on', ...env },
      /listening on (http:\/\/\S+)/,
    )
    return { ...started, url: started.match[1]!.replace('localhost', '127.0.0.1') }
  }

  /**
   * A raw Bun.serve answering every request with `recorded` (an answer of the
   * service, bench/servers/baseline_server.ts); given `pets`, a copy of the pets,
   * it does the store's work on it (a GET's page read, a POST's pet
   * committed) and nothing else, with the same headers.
   */
  baseline(recorded: unknown, pets?: string): Promise<Running> {
    const env: Record<string, string> = pets === undefined ? {} : { BASELINE_PETS: pets }
    return this.#replaying('bench/servers/baseline_server.ts', recorded, /baseline listening on (\d+)/, env)
  }

  /**
   * An Elysia app answering every request with `recorded` through Elysia's
   * `set`, with no work, and the app shapes named in `shapes` (bench/servers/elysia_floor.ts).
   */
  floor(recorded: unknown, shapes: readonly string[] = []): Promise<Running> {
    return this.#replaying('bench/servers/elysia_floor.ts', recorded, /floor listening on (\d+)/, {
      FLOOR_WITH: shapes.join(','),
    })
  }

  /** A peer (bench/servers/peers) on its own copy of the pets. */
  async peer(peer: Peer, env: Record<string, string>): Promise<Running> {
    const started = await this.#start(peer.command(this.root), { PORT: '0', ...env }, PEER_READY)
    return { ...started, url: `http://127.0.0.1:${started.match[1]}` }
  }

  async stop(started: Started): Promise<void> {
    await started.stop()
    this.#running.delete(started)
  }

  async stopAll(): Promise<void> {
    for (const started of this.#running) await started.stop()
    this.#running.clear()
  }

  /** `script` given a file holding `recorded`, which it answers every request with; `ready` captures its port. */
  async #replaying(
    script: string,
    recorded: unknown,
    ready: RegExp,
    env: Record<string, string> = {},
  ): Promise<Running> {
    const file = join(this.work, `${basename(script, '.ts')}-response.json`)
    writeFileSync(file, JSON.stringify(recorded))
    const started = await this.#start([process.execPath, join(this.root, script), file], env, ready)
    return { ...started, url: `http://127.0.0.1:${started.match[1]}` }
  }

  async #start(command: string[], env: Record<string, string>, ready: RegExp) {
    const started = await spawnPinned(command, env, ready)
    this.#running.add(started)
    return started
  }
}
