import { createServer } from 'node:net'
import type { Server } from 'bun'
import { andThen } from '../awaitable'
import { type Config, ConfigError } from '../config'
import { STRICT_TRANSPORT_SECURITY } from './browser_safety'
import { checkHost } from './host'
import { BUN_MAX_BODY_BYTES } from './limits'
import { readTlsPair, TLS_CIPHERS, type TlsPair } from './tls'

/** How long a stop keeps serving, with `Connection: close`, so keep-alive clients leave cleanly. */
export const DRAIN_MS = 500

/** What a listener hands every request to: the app's `fetch`. */
export type Fetch = (request: Request) => Response | Promise<Response>

/** Where and how the public listener listens. */
export type ListenerSettings = Pick<Config, 'host' | 'port' | 'publicUrl' | 'idleTimeoutSeconds' | 'tls'>

/**
 * The public listener: `Bun.serve` with the service's body and idle limits,
 * the `Host` check in front of the app, `Connection: close` on every answer
 * while it stops, and over HTTPS a new listener beside the old one on a
 * certificate reload. Made before the app, so the app can ask it for a
 * request's peer (`peerOf`); `listen` then starts it.
 */
export class Listener {
  #settings: ListenerSettings
  #tls: TlsPair | undefined
  #server: Server<undefined> | undefined
  #fetch: Fetch | undefined
  #draining = false
  // Requests without Host, given the service's own URL by checkHost, and the request Bun received.
  #rebuilt = new WeakMap<Request, Request>()

  /** `tls` is the certificate and key already read (readTlsPair), or undefined for plain HTTP. */
  constructor(settings: ListenerSettings, tls: TlsPair | undefined) {
    this.#settings = settings
    this.#tls = tls
  }

  /**
   * Listens and hands every request to `fetch`. A port that is taken, forbidden
   * or on an address this host lacks is thrown as a ConfigError naming PORT or HOST.
   */
  async listen(fetch: Fetch): Promise<void> {
    const { host, port } = this.#settings
    try {
      if (this.#tls !== undefined && port !== 0 && !(await portIsFree(host, port)))
        throw Object.assign(new Error('port in use'), { code: 'EADDRINUSE' })
      this.#server = this.#serve(fetch, this.#tls, port)
    } catch (error) {
      throw listenError(error, { port, host, portVariable: 'PORT', hostVariable: 'HOST' })
    }
    this.#fetch = fetch
  }

  /** The address to browse to: the scheme, a host a browser can reach, and the port. */
  get url(): string {
    return urlOf(this.#started, this.#tls === undefined ? 'http' : 'https')
  }

  /**
   * The socket peer of a request, asked of whichever listener took it: after a
   * TLS reload that may be an older one.
   */
  readonly peerOf = (request: Request): string | undefined =>
    this.#server?.requestIP(this.#rebuilt.get(request) ?? request)?.address

  /**
   * Reads TLS_CERT_FILE and TLS_KEY_FILE again and serves new connections
   * with them; a bad pair is thrown and the old one kept. Only over HTTPS.
   */
  async reloadTls(): Promise<void> {
    const files = this.#settings.tls
    if (files === undefined || this.#fetch === undefined) throw new Error('not listening over HTTPS')
    // Bun cannot give a listener a new certificate (server.reload ignores tls: oven-sh/bun#43815), so a new
    // listener takes the port beside the old one, and the old one stops taking connections and finishes those it has.
    const pair = await readTlsPair(files)
    const previous = this.#started
    this.#server = this.#serve(this.#fetch, pair, previous.port as number)
    this.#tls = pair
    previous.stop().catch(() => {})
  }

  /** Whether `stop` has begun: the listener still answers, with `Connection: close`, for DRAIN_MS. */
  get draining(): boolean {
    return this.#draining
  }

  /**
   * Answers with `Connection: close` for DRAIN_MS, so no client reuses a
   * connection the stop is about to close, then stops taking connections and
   * lets in-flight requests finish for at most `timeoutMs`, then closes what is left.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.#draining = true
    await Bun.sleep(Math.min(DRAIN_MS, timeoutMs))
    const server = this.#started
    const finished = await Promise.race([server.stop().then(() => true), Bun.sleep(timeoutMs).then(() => false)])
    if (!finished) await server.stop(true)
  }

  /** Stops at once, dropping connections: for a start that fails after listening. */
  stopNow(): void {
    this.#server?.stop(true)
  }

  get #started(): Server<undefined> {
    if (this.#server === undefined) throw new Error('the listener has not started')
    return this.#server
  }

  #serve(fetch: Fetch, tls: TlsPair | undefined, port: number): Server<undefined> {
    const https = tls !== undefined
    // Built only for a request without Host: every listener (a TLS reload adds one) has the same address.
    const ownBase = () => this.#settings.publicUrl ?? urlOf(this.#started, https ? 'https' : 'http')
    const closingWhenDraining = (response: Response): Response => {
      if (this.#draining) response.headers.set('connection', 'close')
      return response
    }
    return Bun.serve({
      port,
      hostname: this.#settings.host,
      // A second server on a busy port must fail, not share it silently. Over HTTPS the port is shared on
      // purpose, with the next listener of a certificate reload only, after a check that nothing holds it.
      reusePort: https,
      tls: tls === undefined ? undefined : { ...tls, ciphers: TLS_CIPHERS },
      maxRequestBodySize: BUN_MAX_BODY_BYTES,
      // A client that stalls mid-request (or holds an idle keep-alive) is cut off after this.
      idleTimeout: this.#settings.idleTimeoutSeconds,
      // Not async: an answer the app makes at once goes back to Bun without a promise (bench/README.md,
      // "Answers without a promise").
      fetch: (received) => {
        const request = checkHost(received, ownBase, https)
        if (request instanceof Response) {
          if (https) request.headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY)
          return request
        }
        // A request given a URL here is a new object: the app asks for its peer under the one Bun received.
        if (request !== received) this.#rebuilt.set(request, received)
        return andThen(fetch(request), closingWhenDraining)
      },
    })
  }
}

/** A listening server's address to browse to: a wildcard address is not one to paste into a browser; loopback is. */
export function urlOf(server: Pick<Server<undefined>, 'hostname' | 'port'>, scheme: 'http' | 'https'): string {
  const { hostname } = server
  const host = hostname === '0.0.0.0' || hostname === '::' || hostname === undefined ? 'localhost' : hostname
  return `${scheme}://${host}:${server.port}`
}

/** Where a listener tried to listen, and the variables that set it. */
export interface ListenAttempt {
  port: number
  host: string
  portVariable: string
  hostVariable: string
}

/** Why Bun could not listen, as the setting to change: a busy or forbidden port, or an address this host lacks. */
export function listenError(error: unknown, { port, host, portVariable, hostVariable }: ListenAttempt): unknown {
  switch ((error as { code?: string }).code) {
    case 'EADDRINUSE':
      return new ConfigError(
        portVariable,
        `port ${port} on ${host} is already in use; stop what holds it or choose another ${portVariable}`,
      )
    case 'EACCES':
      return new ConfigError(
        portVariable,
        `port ${port} needs more privileges than this process has; set ${portVariable} above 1023`,
      )
    case 'EADDRNOTAVAIL':
    case 'EINVAL':
    case 'ENOTFOUND':
      return new ConfigError(hostVariable, `cannot listen on "${host}": not an address of this machine`)
    default:
      return error
  }
}

/** Whether nothing listens on the port: a probe without SO_REUSEPORT binds it and lets go. */
async function portIsFree(host: string, port: number): Promise<boolean> {
  const probe = createServer()
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)))
  })
}
