import type { Awaitable } from '../awaitable'
import type { RedisFailureMode } from '../config'
import type { Limits } from '../keys/plans'
import type { Logger } from '../log'
import { DAY_MS } from '../time'
import { limiterUnavailable, type RateDecision, refused, type Usage } from './decision'
import type { LimiterHealth, RateLimiter, Subject } from './limiter'
import { DEFAULT_ANONYMOUS_MAX } from './memory_limiter'
import { RedisConnection } from './redis_connection'
import { ConsumeCalls, decisionOf } from './redis_consume_calls'
import { REDIS_SCRIPTS } from './redis_scripts'
import { isAnonymousSubject, isKeySubject } from './subject'
import { windowsAt } from './windows'

/** How long a reset is remembered, so instances that hear of it late do not apply it again: the longest window. */
const RESET_REMEMBERED_MS = DAY_MS

/** Usage from an MGET of a subject's ban, minute and day (missing keys are 0). */
function usageOf(reply: (string | null)[], now: number): Usage {
  const [ban, usedMinute, usedDay] = reply.map(Number) as number[] as [number, number, number]
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
 * Fixed-window counters shared by every instance through Redis (one
 * RedisConnection: its outage rules decide when it is asked). Decisions, and so headers, are those of
 * MemoryRateLimiter for the same sequence of requests.
 */
export class RedisRateLimiter implements RateLimiter {
  #redis: RedisConnection
  #options: Required<Omit<RedisRateLimiterOptions, 'timeoutMs'>>
  /** Fields of one generation of the day hashes of callers without a key. */
  readonly #generation: number
  /**
   * Keys Redis answered as banned, with the ban's end: refused here until
   * then without asking Redis again, as Redis would refuse them (a ban counts
   * nothing). Only keys, so it holds at most one entry per key; `reset` (an
   * unban, which every instance applies when it sees it) forgets one.
   */
  readonly #bans = new Map<Subject, number>()
  /** Resets begun so far: a ban answered to a call sent before one is not kept, as the reset may have lifted it. */
  #resets = 0
  /** Where the shared store's version is (pets/shared_page_cache.ts). */
  readonly #storeVersionKey: string
  /** The consume script's calls of this turn, which a key's requests of the turn join. */
  readonly #calls: ConsumeCalls

  constructor(options: RedisRateLimiterOptions) {
    const { timeoutMs, ...rest } = options
    this.#options = { ...rest, anonymousMax: options.anonymousMax ?? DEFAULT_ANONYMOUS_MAX }
    this.#generation = Math.max(1, Math.floor(this.#options.anonymousMax / 2))
    this.#storeVersionKey = `${this.#options.prefix}:store-version`
    this.#redis = new RedisConnection({
      url: options.url,
      logger: options.logger,
      prefix: options.prefix,
      timeoutMs,
      duringOutage: options.failureMode === 'open' ? 'requests go on, limited per instance' : '/v1 answers 503',
    })
    this.#calls = new ConsumeCalls(this.#redis, (subject, now) => {
      const { minute, day } = windowsAt(now)
      const base = this.#base(subject)
      return [`${base}:ban`, `${base}:m:${minute}`, `${base}:d:${day}`, `${base}:r:${minute}`, this.#storeVersionKey]
    })
  }

  /**
   * Connects and loads the script; a service that cannot reach Redis at start
   * still starts, in its failure mode. From here a probe runs every
   * PROBE_EVERY_MS until `close`.
   */
  connect(): Promise<boolean> {
    return this.#redis.connect(Object.values(REDIS_SCRIPTS))
  }

  consume(subject: Subject, limits: Limits, now: number): Awaitable<RateDecision> {
    const banEnd = this.#bans.get(subject)
    if (banEnd !== undefined) {
      if (banEnd > now) return refused('key_banned', 'ban', limits, limits.rpm, banEnd, now)
      this.#bans.delete(subject)
    }
    return isAnonymousSubject(subject, limits)
      ? this.#consumeAnonymous(subject, limits, now)
      : this.#consume(subject, limits, now)
  }

  async #consume(subject: Subject, limits: Limits, now: number): Promise<RateDecision> {
    const resets = this.#resets
    const breaks = this.#redis.breaks
    const { reply, at } = this.#calls.join(subject, limits, now)
    let replies: unknown[]
    try {
      replies = (await reply) as unknown[]
    } catch {
      if (this.#options.failureMode === 'closed') return limiterUnavailable(limits, now)
      return this.#options.fallback.consume(subject, limits, now)
    }
    const decision = decisionOf(replies, at, limits, now)
    if (decision.refusal === 'key_banned' && isKeySubject(subject) && resets === this.#resets)
      this.#bans.set(subject, replies[at + 1] as number)
    // The store's version follows the requests' numbers; a call that counted none read none.
    if (decision.refusal === undefined) decision.storeVersion = this.#storeVersion(replies.at(-1) as string, breaks)
    return decision
  }

  async #consumeAnonymous(subject: Subject, limits: Limits, now: number): Promise<RateDecision> {
    const { minute, day, minuteEnd, dayEnd } = windowsAt(now)
    const keys = [
      this.#anonymousBan(subject),
      `${this.anonymousBase}:r:${minute}`,
      `${this.anonymousBase}:b:${minute}`,
      ...this.#anonymousDay(day),
    ]
    const args = [
      String(subject),
      String(limits.rpm),
      String(limits.rpd),
      ...this.#calls.windowArguments(now, minuteEnd, dayEnd),
      String(this.#generation),
      String(minute),
    ]
    try {
      return decisionOf(
        (await this.#redis.evaluate(REDIS_SCRIPTS.consumeAnonymous, keys, args)) as unknown[],
        0,
        limits,
        now,
      )
    } catch {
      if (this.#options.failureMode === 'closed') return limiterUnavailable(limits, now)
      return this.#options.fallback.consume(subject, limits, now)
    }
  }

  /** One MGET of the ban and both windows' counts: nothing is counted or written. */
  async peek(subject: Subject, limits: Limits, now: number): Promise<Usage | undefined> {
    const breaks = this.#redis.breaks
    const { minute, day } = windowsAt(now)
    const base = this.#base(subject)
    let reply: (string | null)[]
    try {
      reply = (await (isAnonymousSubject(subject, limits)
        ? this.#redis.evaluate(
            REDIS_SCRIPTS.peekAnonymous,
            [this.#anonymousBan(subject), ...this.#anonymousDay(day)],
            [String(subject), String(minute)],
          )
        : this.#redis.send('MGET', [
            `${base}:ban`,
            `${base}:m:${minute}`,
            `${base}:d:${day}`,
            this.#storeVersionKey,
          ]))) as (string | null)[]
    } catch {
      if (this.#options.failureMode === 'closed') return undefined
      return this.#options.fallback.peek(subject, limits, now)
    }
    const usage = usageOf(reply, now)
    usage.storeVersion = this.#storeVersion(reply[3], breaks)
    return usage
  }

  /** One script: both windows the request was counted in one lower, then the reading `peek` makes. */
  async refund(subject: Subject, limits: Limits, countedAt: number, now: number): Promise<Usage | undefined> {
    const counted = windowsAt(countedAt)
    const { minute, day } = windowsAt(now)
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
      reply = (await this.#redis.evaluate(script, keys, args)) as (string | null)[]
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
    this.#resets++
    this.#bans.delete(subject)
    this.#options.fallback.reset(subject, reset, now)
    const { minute, day } = windowsAt(now)
    const base = this.#base(subject)
    const keys = [`${base}:reset`, `${base}:ban`, `${base}:m:${minute}`, `${base}:d:${day}`, `${base}:r:${minute}`]
    await this.#redis.evaluate(REDIS_SCRIPTS.reset, keys, [reset, String(RESET_REMEMBERED_MS)])
  }

  /**
   * Marks a committed change to the shared store: a new random version, so
   * every instance's next list reads the store anew (pets/shared_page_cache.ts).
   * Throws when Redis cannot be asked.
   */
  async storeChanged(): Promise<void> {
    await this.#redis.send('SET', [this.#storeVersionKey, crypto.randomUUID()])
  }

  /**
   * The store's version a reply carried, with how often the connection broke
   * before it was asked: a version read before a break never equals one read after it.
   */
  #storeVersion(version: number | string | null | undefined, breaks: number): string | undefined {
    if (version === null || version === undefined || this.#redis.breaks !== breaks) return undefined
    return `${breaks}:${version}`
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
    if (this.#redis.failing) this.#redis.probe()
    if (!this.#redis.failing) return 'ok'
    return this.#options.failureMode === 'open' ? 'degraded' : 'down'
  }

  close(): void {
    this.#redis.close()
  }
}
