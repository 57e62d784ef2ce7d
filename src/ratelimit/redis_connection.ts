import { RedisClient } from 'bun'
import type { Logger } from '../log'
import type { RedisScript } from './redis_scripts'

/**
 * How long a call to Redis may take before the request is decided without it:
 * far above a healthy round trip (bench/README.md, "The costs behind the
 * code's choices"), so a busy process that was late to read the answer does
 * not count as an outage.
 */
export const REDIS_TIMEOUT_MS = 1000
/** How often the watchdog looks at the oldest call in flight, as a share of the timeout: a call waits at most 1.25 times it. */
const WATCHDOG_EVERY = 0.25
/** While Redis is down, how often one call tries it again. */
const RETRY_EVERY_MS = 1000
/**
 * How often the limiter writes a probe key on its own, traffic or not: an
 * outage (or a Redis that refuses writes, full at `maxmemory`) is noticed
 * within this and a timeout, and a recovery within this.
 */
export const PROBE_EVERY_MS = 1000

/** What a connection to Redis is built from. */
export interface RedisConnectionOptions {
  url: string
  logger: Logger
  /** Start of every key (REDIS_KEY_PREFIX): the probe writes `<prefix>:probe`. */
  prefix: string
  /** How long one call may take before Redis counts as unreachable. */
  timeoutMs?: number
  /** What requests get while Redis is down, for the log line of an outage. */
  duringOutage: string
}

/**
 * One client of Redis (Bun's built-in) with the rules of an outage: every
 * call bounded by a timeout; while Redis is down, one call at a time tries
 * it, at most once a second, and every other fails at once; a probe every
 * second, traffic or not, notices an outage and a recovery; one log line
 * each way.
 */
export class RedisConnection {
  #client: RedisClient
  #options: Required<RedisConnectionOptions>
  #failing = false
  #retryAt = 0
  /** The one call that tries Redis while it is down; the others fail at once meanwhile. */
  #attempt: Promise<unknown> | undefined
  #probeTimer: Timer | undefined
  #watchdog: Timer | undefined
  #breaks = 0
  /** Calls made in this turn of the event loop, sent together at the next `setImmediate`. */
  #batch: (() => void)[] = []
  /** When each call still unanswered was sent, oldest first from index `#oldest`. */
  #sentAt: number[] = []
  #oldest = 0

  constructor(options: RedisConnectionOptions) {
    this.#options = { ...options, timeoutMs: options.timeoutMs ?? REDIS_TIMEOUT_MS }
    // No offline queue: while disconnected a call fails at once instead of waiting for a reconnect.
    this.#client = new RedisClient(options.url, {
      enableOfflineQueue: false,
      connectionTimeout: 2000,
      autoReconnect: true,
    })
    // Every connection after the first follows a break (Bun reconnects on its own, and calls onconnect each
    // time; its onclose is not called then, as Bun 1.4.5 was found to do).
    this.#client.onconnect = () => {
      this.#breaks++
    }
  }

  /**
   * How many times the connection broke or a call failed so far: what was
   * read from Redis before the last break (the store's version) may be stale
   * after it, as Redis may have restarted or missed writes meanwhile.
   */
  get breaks(): number {
    return this.#breaks
  }

  /**
   * Connects and loads the scripts; false when Redis cannot be reached yet.
   * From here a probe runs every PROBE_EVERY_MS until `close`.
   */
  async connect(scripts: RedisScript[]): Promise<boolean> {
    this.#probeTimer ??= setInterval(() => this.probe(), PROBE_EVERY_MS)
    this.#probeTimer.unref()
    this.#watchdog ??= setInterval(() => this.#checkWaiting(), this.#options.timeoutMs * WATCHDOG_EVERY)
    this.#watchdog.unref()
    try {
      for (const { source } of scripts) await this.#ask(() => this.#client.send('SCRIPT', ['LOAD', source]))
      return true
    } catch {
      return false
    }
  }

  /** Whether the last call (or probe) found Redis down. */
  get failing(): boolean {
    return this.#failing
  }

  /** One command. */
  send(command: string, args: string[]): Promise<unknown> {
    return this.#ask(() => this.#client.send(command, args))
  }

  /** One script. EVALSHA sends only its hash; a Redis that restarted has forgotten it, and EVAL teaches it again. */
  evaluate(script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    return this.evaluateWhenSent(script, keys, () => args)
  }

  /**
   * One script whose arguments are asked for when the turn's calls go out
   * (at the next `setImmediate`), not now: until then the caller may still
   * change them, as the limiter does to count a key's requests of one turn
   * in one call. Never asked when the call fails before it is sent (Redis down).
   */
  evaluateWhenSent({ source, sha }: RedisScript, keys: string[], argsWhenSent: () => string[]): Promise<unknown> {
    return this.#ask(() => {
      const command = [sha, String(keys.length), ...keys, ...argsWhenSent()]
      return this.#client.send('EVALSHA', command).catch((error: Error) => {
        if (!String(error.message).includes('NOSCRIPT')) throw error
        command[0] = source
        return this.#client.send('EVAL', command)
      })
    })
  }

  close(): void {
    clearInterval(this.#probeTimer)
    clearInterval(this.#watchdog)
    this.#client.close()
  }

  /**
   * A small write with an expiry (not a PING): a Redis that answers but
   * refuses writes (full at `maxmemory` under `noeviction`) is as down for
   * counting as one that does not answer.
   */
  probe(): void {
    const key = `${this.#options.prefix}:probe`
    this.#ask(() => this.#client.send('SET', [key, String(Date.now()), 'PX', String(10 * PROBE_EVERY_MS)])).catch(
      () => {},
    )
  }

  /**
   * One call to Redis, bounded by the timeout. While Redis is down, one call
   * at a time tries it, at most once every RETRY_EVERY_MS (reconnecting the
   * client first if Bun gave up): every other call fails at once, so the
   * requests it serves are decided by the failure mode without waiting.
   */
  #ask<T>(work: () => Promise<T>): Promise<T> {
    if (!this.#failing) return this.#call(work)
    return this.#retry(work)
  }

  async #retry<T>(work: () => Promise<T>): Promise<T> {
    if (this.#attempt !== undefined || performance.now() < this.#retryAt)
      throw new Error('Redis is down; not asked again yet')
    // Moved when the try starts, not when it fails: calls arriving while it waits are not tries too.
    this.#retryAt = performance.now() + RETRY_EVERY_MS
    const attempt = this.#call(work)
    this.#attempt = attempt
    try {
      return await attempt
    } finally {
      this.#attempt = undefined
    }
  }

  /**
   * Sends `work` with every other call made in this turn of the event loop:
   * they wait for `setImmediate` and go out together, so Redis gets them in
   * one write and answers them in one read. Concurrent requests' calls
   * otherwise went out one write each: about 4.5 µs of CPU a request in raw
   * Bun (bench/README.md, "What an answer that waits costs"). No timer of
   * its own: the watchdog looks at when the oldest unanswered call was made,
   * since Redis answers one connection's calls in order.
   */
  #call<T>(work: () => Promise<T>): Promise<T> {
    if (!this.#client.connected) return this.#connectThenCall(work)
    this.#sentAt.push(performance.now())
    return new Promise<T>((resolve, reject) => {
      if (this.#batch.length === 0) setImmediate(this.#sendBatch)
      this.#batch.push(() => {
        let answer: Promise<T>
        try {
          answer = work()
        } catch (error) {
          answer = Promise.reject(error)
        }
        answer.then(
          (value) => {
            this.#answered()
            this.#noteSuccess()
            resolve(value)
          },
          (error) => {
            this.#answered()
            this.#noteFailure(error)
            reject(error)
          },
        )
      })
    })
  }

  /** Sends the calls made since the last batch went out, in the order they were made. */
  readonly #sendBatch = () => {
    const batch = this.#batch
    this.#batch = []
    for (const send of batch) send()
  }

  async #connectThenCall<T>(work: () => Promise<T>): Promise<T> {
    try {
      await this.#withTimeout(this.#client.connect())
    } catch (error) {
      this.#noteFailure(error)
      throw error
    }
    return this.#call(work)
  }

  /** One call answered (or failed): the oldest is no longer waited for. */
  #answered(): void {
    if (++this.#oldest < this.#sentAt.length) return
    this.#sentAt.length = 0
    this.#oldest = 0
  }

  /**
   * Every WATCHDOG_EVERY of the timeout: when the oldest call has waited
   * longer than the timeout, Redis counts as unreachable, and the connection
   * is closed, which fails every call in flight at once (the next try connects anew).
   */
  #checkWaiting(): void {
    const oldest = this.#sentAt[this.#oldest]
    if (oldest === undefined || performance.now() - oldest < this.#options.timeoutMs) return
    this.#noteFailure(new Error(`Redis did not answer within ${this.#options.timeoutMs} ms`))
    this.#client.close()
  }

  #withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: Timer | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.#options.timeoutMs} ms`)),
        this.#options.timeoutMs,
      )
    })
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
  }

  #noteFailure(error: unknown): void {
    this.#breaks++
    this.#retryAt = performance.now() + RETRY_EVERY_MS
    if (this.#failing) return
    this.#failing = true
    this.#options.logger.warn(`rate limiter: Redis unreachable, ${this.#options.duringOutage} until it answers again`, {
      error: String((error as Error)?.message ?? error),
    })
  }

  #noteSuccess(): void {
    if (!this.#failing) return
    this.#failing = false
    this.#options.logger.info('rate limiter: Redis answers again; limits are shared once more')
  }
}
