import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchKeys } from './seed'

/** What a user would write instead of the service (bench/servers/peers), and how to start it. */
export interface Peer {
  name: string
  /** The command, given the repository's root. */
  command(root: string): string[]
}

export const PEERS: Peer[] = [
  { name: 'Elysia peer', command: (root) => [process.execPath, join(root, 'bench/servers/peers/elysia.ts')] },
  { name: 'Hono peer', command: (root) => [process.execPath, join(root, 'bench/servers/peers/hono.ts')] },
  { name: 'Fastify peer (Node)', command: (root) => ['node', join(root, 'bench/servers/peers/fastify.mjs')] },
]

/** The line a peer prints once it listens. */
export const PEER_READY = /peer listening on (\d+)/

/**
 * Installs the peers' own dependencies on first use (`npm ci --prefix
 * bench/servers/peers`: Hono, Fastify, better-sqlite3 built for this Node), so the
 * service's install stays lean.
 */
export function installPeers(root: string): void {
  const folder = join(root, 'bench/servers/peers')
  if (existsSync(join(folder, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))) return
  console.error(
    'bench: installing the peers (npm ci --prefix bench/servers/peers; better-sqlite3 builds for about 2 minutes)',
  )
  const done = Bun.spawnSync(['npm', 'ci', '--prefix', folder, '--no-audit', '--no-fund'], {
    stdout: 'inherit',
    stderr: 'inherit',
  })
  if (done.exitCode !== 0) throw new Error('npm ci --prefix bench/servers/peers failed')
}

/**
 * The peers' keys, as PEER_KEYS: the unlimited key far above what a run
 * sends, and the Free key with a limit of 0, so that every request of the
 * 429 path is refused (the service bans a key that keeps going over; a
 * fixed window would let 60 a minute through).
 */
export function peerKeys(keys: BenchKeys): string {
  return JSON.stringify({ [keys.unlimited]: 1e9, [keys.free]: 0 })
}
