import type { Logger } from '../log'
import { StorageFaultError, type StoreUnavailableError } from './store_unavailable'

/** How long one fault stays one episode in the log: a minute without it, and the next is logged again. */
export const FAULT_EPISODE_MS = 60_000

/**
 * Logs database faults once per episode, not once per request: a full disk
 * under load would otherwise write a line (and a stack) for every refused
 * request. A fault is logged when first seen, and again once a minute has
 * passed without it; the count of requests refused meanwhile goes with it.
 */
export class FaultLog {
  #last = new Map<string, { seenAt: number; refused: number }>()
  #logger: Logger
  #clock: () => number

  constructor(logger: Logger, clock: () => number) {
    this.#logger = logger
    this.#clock = clock
  }

  /** Notes a request refused because of `error`, logging it when an episode starts. */
  report(error: StoreUnavailableError): void {
    const fault = error instanceof StorageFaultError ? error.fault : error.message
    const now = this.#clock()
    const last = this.#last.get(fault)
    if (last !== undefined && now - last.seenAt < FAULT_EPISODE_MS) {
      last.seenAt = now
      last.refused++
      return
    }
    this.#last.set(fault, { seenAt: now, refused: 1 })
    this.#logger.warn('database fault: requests are answered 503 until it clears', {
      fault,
      ...(last === undefined ? {} : { refusedInLastEpisode: last.refused }),
      // The message alone: the stack of a disk that is full says nothing more.
      error: error.cause instanceof Error ? error.cause.message : error.message,
    })
  }
}
