import { RedisClient } from 'bun'
import type { RedisFailureMode } from '../config'
import type { Limits } from '../keys/plans'
import type { Logger } from '../log'
import { DAY_MS, MINUTE_MS } from '../time'
import { allowed, limiterUnavailable, type RateDecision, refused, type Usage } from './decision'
import type { LimiterHealth, RateLimiter, Subject } from './limiter'
import { DEFAULT_ANONYMOUS_MAX, isAnonymousSubject } from './memory_limiter'
import { REDIS_SCRIPTS, type RedisScript } from './redis_scripts'
import { BAN_MS } from './windows'

/** How long a reset is remembered, so instances that hear of it late do not apply it again: the longest window. */
const RESET_REMEMBERED_MS = DAY_MS

/** Usage from an MGET of a subject's ban, minute and day (missing keys are 0). */
function usageOf(reply: (string | null)[], now: number): Usage {
  const [ban, usedMinute, usedDay] = reply.map((value) => (value === null ? 0 : Number(value))) as [
    number,
    number,
    number,
  ]
  return { usedMinute, usedDay, banEnd: ban > now ? ban : undefined }
}

/** What a Redis limiter is built from. */
export interface RedisRateLimiterOptions {
  url: string
  /**
   * `open`: requests go on, counted by `fallback` in this process alone,
   * `closed`: they are refused (`rate_limiter_unavailable`). Either way a warning is logged once per outage.
   */
  failureMode: RedisFailureMode
  /** Counts while Redis is unreachable in `open` mode. */
  fallback: RateLimiter
  logger: Logger
  /** Start of every key (REDIS_KEY_PREFIX), so deployments and tests can share a Redis. */
  prefix: string
  /** How long one call may take before Redis counts as unreachable. */
  timeoutMs?: number
  /** The most callers without a key whose day Redis holds (ANON_SUBJECTS_MAX), as the in-memory limiter bounds them. */
  anonymousMax?: number
}

/**
 * How long a call to Redis may take before the request is decided without it:
 * far above a healthy round trip (bench/README.md, "The costs behind the
 * code's choices"), so a busy process that was late to read the answer does
 * not count as an outage.
 */
export const REDIS_TIMEOUT_MS = 1000
/** While Redis is down, how often one call tries it again. */
const RETRY_EVERY_MS = 1000
/**
 * How often the limiter writes a probe key on its own, traffic or not: an
 * outage (or a Redis that refuses writes, full at `maxmemory`) is noticed
 * within this and a timeout, and a recovery within this.
 */
export const PROBE_EVERY_MS = 1000

/**
 * Fixed-window counters shared by every instance through Redis (Bun's
 * built-in client). Decisions, and so headers, are those of
 * MemoryRateLimiter for the same sequence of requests.
 */
export class RedisRateLimiter implements RateLimiter {
  #client: RedisClient
  #options: Required<RedisRateLimiterOptions>
  #failing = false
  #retryAt = 0
  /** The one call that tries Redis while it is down; the others are decided at once meanwhile. */
  #attempt: Promise<unknown> | undefined
  #probeTimer: Timer | undefined
  /** Fields of one generation of the day hashes of callers without a key. */
  readonly #generation: number

  constructor(options: RedisRateLimiterOptions) {
    this.#options = {
      ...options,
      timeoutMs: options.timeoutMs ?? REDIS_TIMEOUT_MS,
      anonymousMax: options.anonymousMax ?? DEFAULT_ANONYMOUS_MAX,
    }
    this.#generation = Math.max(1, Math.floor(this.#options.anonymousMax / 2))
    // No offline queue: while disconnected a call fails at once instead of waiting for a reconnect.
    this.#client = new RedisClient(options.url, {
      enableOfflineQueue: false,
      connectionTimeout: 2000,
      autoReconnect: true,
    })
  }

  /**
   * Connects and loads the script; a service that cannot reach Redis at start
   * still starts, in its failure mode. From here a probe runs every
   * PROBE_EVERY_MS until `close`.
   */
  async connect(): Promise<boolean> {
    this.#probeTimer ??= setInterval(() => this.#probe(), PROBE_EVERY_MS)
    this.#probeTimer.unref()
    try {
      for (const { source } of Object.values(REDIS_SCRIPTS))
        await this.#ask(() => this.#client.send('SCRIPT', ['LOAD', source]))
      return true
    } catch {
      return false
    }
  }

  async consume(subject: Subject, limits: Limits, now: number): Promise<RateDecision> {
    const { minute, day, minuteEnd, dayEnd } = this.#windows(now)
    const windows = [String(now), String(minuteEnd), String(dayEnd), String(BAN_MS)]
    const anonymous = isAnonymousSubject(subject, limits)
    const base = this.#base(subject)
    const [script, keys, args] = anonymous
      ? [
          REDIS_SCRIPTS.consumeAnonymous,
          [
            this.#anonymousBan(subject),
            `${this.anonymousBase}:r:${minute}`,
            `${this.anonymousBase}:b:${minute}`,
            ...this.#anonymousDay(day),
          ],
          [
            String(subject),
            String(limits.rpm),
            String(limits.rpd),
            ...windows,
            String(this.#generation),
            String(minute),
          ],
        ]
      : [
          REDIS_SCRIPTS.consume,
          [`${base}:ban`, `${base}:m:${minute}`, `${base}:d:${day}`, `${base}:r:${minute}`],
          [String(limits.rpm), String(limits.rpd), ...windows],
        ]
    let reply: number[]
    try {
      reply = (await this.#ask(() => this.#evaluate(script, keys, args))) as number[]
    } catch {
      if (this.#options.failureMode === 'closed') return limiterUnavailable(limits, now)
      return this.#options.fallback.consume(subject, limits, now)
    }
    const [outcome, first, second] = reply as [number, number, number]
    if (outcome === 2) return refused('key_banned', 'ban', limits, limits.rpm, first, now)
    if (outcome === 1) {
      return second >= limits.rpd
        ? refused('rate_limit_exceeded', 'day', limits, second, dayEnd, now)
        : refused('rate_limit_exceeded', 'minute', limits, first, minuteEnd, now)
    }
    return allowed(first, second, limits, minuteEnd, dayEnd, now)
  }

  /** One MGET of the ban and both windows' counts: nothing is counted or written. */
  async peek(subject: Subject, limits: Limits, now: number): Promise<Usage | undefined> {
    const { minute, day } = this.#windows(now)
    const base = this.#base(subject)
    let reply: (string | null)[]
    try {
      reply = (await this.#ask(() =>
        isAnonymousSubject(subject, limits)
          ? this.#evaluate(
              REDIS_SCRIPTS.peekAnonymous,
              [this.#anonymousBan(subject), ...this.#anonymousDay(day)],
              [String(subject), String(minute)],
            )
          : this.#client.send('MGET', [`${base}:ban`, `${base}:m:${minute}`, `${base}:d:${day}`]),
      )) as (string | null)[]
    } catch {
      if (this.#options.failureMode === 'closed') return undefined
      return this.#options.fallback.peek(subject, limits, now)
    }
    return usageOf(reply, now)
  }

  /** One script: both windows the request was counted in one lower, then the reading `peek` makes. */
  async refund(subject: Subject, limits: Limits, countedAt: number, now: number): Promise<Usage | undefined> {
    const counted = this.#windows(countedAt)
    const { minute, day } = this.#windows(now)
    const base = this.#base(subject)
    const anonymous = isAnonymousSubject(subject, limits)
    const [script, keys, args] = anonymous
      ? [
          REDIS_SCRIPTS.refundAnonymous,
          [...this.#anonymousDay(counted.day), this.#anonymousBan(subject), ...this.#anonymousDay(day)],
          [String(subject), String(counted.minute), String(minute)],
        ]
      : [
          REDIS_SCRIPTS.refund,
          [
            `${base}:m:${counted.minute}`,
            `${base}:d:${counted.day}`,
            `${base}:ban`,
            `${base}:m:${minute}`,
            `${base}:d:${day}`,
          ],
          [],
        ]
    let reply: (string | null)[]
    try {
      reply = (await this.#ask(() => this.#evaluate(script, keys, args))) as (string | null)[]
    } catch {
      // Open mode: the fallback counted the request, if Redis was already down when it came.
      if (this.#options.failureMode === 'closed') return undefined
      return this.#options.fallback.refund(subject, limits, countedAt, now)
    }
    return usageOf(reply, now)
  }

  /**
   * One script: the ban and the current windows deleted, unless this reset
   * was applied already (by the CLI or another instance). The fallback is
   * reset too. Throws when Redis cannot be asked.
   */
  async reset(subject: Subject, reset: string, now: number): Promise<void> {
    this.#options.fallback.reset(subject, reset, now)
    const { minute, day } = this.#windows(now)
    const base = this.#base(subject)
    const keys = [`${base}:reset`, `${base}:ban`, `${base}:m:${minute}`, `${base}:d:${day}`, `${base}:r:${minute}`]
    await this.#ask(() => this.#evaluate(REDIS_SCRIPTS.reset, keys, [reset, String(RESET_REMEMBERED_MS)]))
  }

  #windows(now: number) {
    const minute = Math.floor(now / MINUTE_MS)
    const day = Math.floor(now / DAY_MS)
    return { minute, day, minuteEnd: (minute + 1) * MINUTE_MS, dayEnd: (day + 1) * DAY_MS }
  }

  // The braces keep one subject's keys in one Redis Cluster slot.
  #base(subject: Subject): string {
    return `${this.#options.prefix}:{${subject}}`
  }

  /** The start of every key of callers without a key: one slot, as their scripts read several subjects' hashes. */
  get anonymousBase(): string {
    return `${this.#options.prefix}:{anonymous}`
  }

  #anonymousBan(subject: Subject): string {
    return `${this.anonymousBase}:ban:${subject}`
  }

  /** A day's hashes of callers without a key: spent, recent, older (redis_scripts.ts). */
  #anonymousDay(day: number): string[] {
    const base = `${this.anonymousBase}:d:${day}`
    return [`${base}:spent`, `${base}:recent`, `${base}:older`]
  }

  /**
   * What the last call to Redis found, at once: `/health` never waits for
   * Redis. While it is down this also starts a try when one is due, whose
   * outcome the next call reads (the probe keeps it fresh without traffic).
   */
  async health(): Promise<LimiterHealth> {
    if (this.#failing) this.#probe()
    if (!this.#failing) return 'ok'
    return this.#options.failureMode === 'open' ? 'degraded' : 'down'
  }

  close(): void {
    clearInterval(this.#probeTimer)
    this.#client.close()
  }

  /**
   * A small write with an expiry (not a PING): a Redis that answers but
   * refuses writes (full at `maxmemory` under `noeviction`) is as down for
   * counting as one that does not answer.
   */
  #probe(): void {
    const key = `${this.#options.prefix}:probe`
    this.#ask(() => this.#client.send('SET', [key, String(Date.now()), 'PX', String(10 * PROBE_EVERY_MS)])).catch(
      () => {},
    )
  }

  // EVALSHA sends only the script's hash; a Redis that restarted has forgotten the script, and EVAL teaches it again.
  async #evaluate({ source, sha }: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#client.send('EVALSHA', [sha, String(keys.length), ...keys, ...args])
    } catch (error) {
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error
      return this.#client.send('EVAL', [source, String(keys.length), ...keys, ...args])
    }
  }

  /**
   * One call to Redis, bounded by the timeout. While Redis is down, one call
   * at a time tries it, at most once every RETRY_EVERY_MS (reconnecting the
   * client first if Bun gave up): every other call fails at once, so the
   * requests it serves are decided by the failure mode without waiting.
   */
  async #ask<T>(work: () => Promise<T>): Promise<T> {
    if (!this.#failing) return this.#call(work)
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

  async #call<T>(work: () => Promise<T>): Promise<T> {
    try {
      if (!this.#client.connected) await this.#withTimeout(this.#client.connect())
      const answer = await this.#withTimeout(work())
      this.#noteSuccess()
      return answer
    } catch (error) {
      this.#noteFailure(error)
      throw error
    }
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
    this.#retryAt = performance.now() + RETRY_EVERY_MS
    if (this.#failing) return
    this.#failing = true
    const outcome = this.#options.failureMode === 'open' ? 'requests go on, limited per instance' : '/v1 answers 503'
    this.#options.logger.warn(`rate limiter: Redis unreachable, ${outcome} until it answers again`, {
      error: String((error as Error)?.message ?? error),
    })
  }

  #noteSuccess(): void {
    if (!this.#failing) return
    this.#failing = false
    this.#options.logger.info('rate limiter: Redis answers again; limits are shared once more')
  }
}
