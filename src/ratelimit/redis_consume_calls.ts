import type { Limits } from '../keys/plans'
import { allowed, type RateDecision, refused } from './decision'
import type { Subject } from './limiter'
import type { RedisConnection } from './redis_connection'
import { REDIS_SCRIPTS } from './redis_scripts'
import { BAN_MS, windowsAt } from './windows'

const BAN_TEXT = String(BAN_MS)

/** Where a request's decision is: in the reply of the call that counts it, from index `at` (three numbers). */
export interface ConsumeSeat {
  reply: Promise<unknown>
  at: number
}

/** One call of the consume script not yet sent: the requests of one subject with these limits and this `now`. */
interface OpenCall {
  now: number
  rpm: number
  rpd: number
  size: number
  reply: Promise<unknown>
}

/**
 * The consume script's calls of one turn of the event loop: a subject's
 * requests of the turn with the same limits and `now` (so the same keys
 * and arguments) join one call while it is not yet sent, and the script
 * decides them all, in the order they came, as it would have one call each
 * (redis_scripts.ts). A client's concurrent requests so cost one call, not
 * one each (bench/README.md, "One call for a key's requests of one turn").
 * A request after another `now` or other limits starts the next call, so
 * the order of a subject's requests is kept.
 */
export class ConsumeCalls {
  readonly #redis: RedisConnection
  readonly #keysOf: (subject: Subject, now: number) => string[]
  readonly #open = new Map<Subject, OpenCall>()
  #argumentsAt = Number.NaN
  #arguments: string[] = []

  /** `keysOf` names the script's keys for a subject at a moment (its ban, its windows, the store's version). */
  constructor(redis: RedisConnection, keysOf: (subject: Subject, now: number) => string[]) {
    this.#redis = redis
    this.#keysOf = keysOf
  }

  /** Counts a request of `subject` in this turn's call for it, or in a new one. */
  join(subject: Subject, limits: Limits, now: number): ConsumeSeat {
    let call = this.#open.get(subject)
    if (call === undefined || call.now !== now || call.rpm !== limits.rpm || call.rpd !== limits.rpd)
      call = this.#opened(subject, limits, now)
    return { reply: call.reply, at: 3 * call.size++ }
  }

  #opened(subject: Subject, { rpm, rpd }: Limits, now: number): OpenCall {
    const { minuteEnd, dayEnd } = windowsAt(now)
    const windows = this.windowArguments(now, minuteEnd, dayEnd)
    const call: OpenCall = { now, rpm, rpd, size: 0, reply: undefined as never }
    // Closed once sent (a later request starts the next call) or failed unsent: never joined after that.
    const close = () => {
      if (this.#open.get(subject) === call) this.#open.delete(subject)
    }
    this.#open.set(subject, call)
    call.reply = this.#redis.evaluateWhenSent(REDIS_SCRIPTS.consume, this.#keysOf(subject, now), () => {
      close()
      return [String(rpm), String(rpd), ...windows, String(call.size)]
    })
    call.reply.then(close, close)
    return call
  }

  /**
   * The consume scripts' time arguments as text, made again only when `now`
   * moves: under load many requests share a millisecond, and turning four
   * numbers into text was an eighth of a call's CPU (bench/README.md, "One instance or three").
   */
  windowArguments(now: number, minuteEnd: number, dayEnd: number): string[] {
    if (now !== this.#argumentsAt) {
      this.#argumentsAt = now
      this.#arguments = [String(now), String(minuteEnd), String(dayEnd), BAN_TEXT]
    }
    return this.#arguments
  }
}

/** The decision a consume script's three numbers from `at` give: counted (0), refused (1) or banned (2). */
export function decisionOf(reply: readonly unknown[], at: number, limits: Limits, now: number): RateDecision {
  const outcome = reply[at]
  const first = reply[at + 1] as number
  const second = reply[at + 2] as number
  if (outcome === 2) return refused('key_banned', 'ban', limits, limits.rpm, first, now)
  const { minuteEnd, dayEnd } = windowsAt(now)
  if (outcome === 1) {
    return second >= limits.rpd
      ? refused('rate_limit_exceeded', 'day', limits, second, dayEnd, now)
      : refused('rate_limit_exceeded', 'minute', limits, first, minuteEnd, now)
  }
  return allowed(first, second, limits, minuteEnd, dayEnd, now)
}
