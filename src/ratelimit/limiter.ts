import type { Awaitable } from '../awaitable'
import type { Limits } from '../keys/plans'
import type { RateDecision, Usage } from './decision'

/** Who is counted: a key's id, or a client address (an IPv4 as a negative number, anything else as text). */
export type Subject = number | string

/**
 * Counts requests per subject against a per-minute and a per-day limit.
 * `now` is passed in: implementations decide by it, never by a clock of
 * their own (the Redis one paces its retries by one, nothing else). An
 * in-memory one answers at once; a shared one may answer later.
 */
export interface RateLimiter {
  /**
   * True when `consume` and `peek` always answer at once, never with a
   * promise (the in-memory one): the guard then runs as a plain function,
   * which Elysia serves far more cheaply than an async one (bench/README.md,
   * "Answers without a promise").
   */
  readonly answersAtOnce?: boolean
  /** Counts one request, unless it is refused, and says which. */
  consume(subject: Subject, limits: Limits, now: number): Awaitable<RateDecision>
  /**
   * What the subject has used in the current windows and whether it is
   * banned, without counting anything. Undefined from a shared limiter that
   * cannot be asked and refuses rather than guess.
   */
  peek(subject: Subject, limits: Limits, now: number): Awaitable<Usage | undefined>
  /**
   * Gives back one request counted at `countedAt` (an answer that did not
   * spend quota: a 304, or our own 5xx): each window it was counted in is
   * one lower, if that window is still current. Then reads as `peek` does.
   */
  refund(subject: Subject, limits: Limits, countedAt: number, now: number): Awaitable<Usage | undefined>
  /**
   * Lifts a key subject's ban and clears its counts in the current minute and
   * day (an operator's `keys unban`). `reset` names this reset, so a shared
   * limiter applies it once however many instances (and the CLI) ask.
   */
  reset(subject: Subject, reset: string, now: number): Awaitable<void>
  /** For `/health`; a limiter without it is always `ok`. */
  health?(): Awaitable<LimiterHealth>
  /** Releases a connection, if the limiter holds one. */
  close?(): void
}

/**
 * `ok`: counting as designed. `degraded`: a shared limiter's server is
 * unreachable and requests go on, counted per instance. `down`: it is
 * unreachable and requests are refused.
 */
export type LimiterHealth = 'ok' | 'degraded' | 'down'
