import type { Logger } from '../log'
import { MINUTE_MS } from '../time'
import type { ApiKey, KeyStore } from './store'

/**
 * Keeps each key's last use, to the minute: a key's first request in a
 * clock minute queues one write, and the writes queued in one tick go to
 * the store together after it, so the request path does a map lookup and
 * never waits for the database. A failed write is logged; the key's next
 * minute writes again.
 */
export class LastUseRecorder {
  #keys: Pick<KeyStore, 'recordUse'>
  #logger: Logger
  #minuteOf = new Map<number, number>()
  // Key ids waiting to be written, by the minute they were used in.
  #queued = new Map<number, number[]>()
  #scheduled = false
  // Writes run one after another: each waits for the one before.
  #written: Promise<void> = Promise.resolve()

  constructor(keys: Pick<KeyStore, 'recordUse'>, logger: Logger) {
    this.#keys = keys
    this.#logger = logger
  }

  /** Notes that `key` was used at `now` (epoch ms). */
  note(key: ApiKey, now: number): void {
    const minute = Math.floor(now / MINUTE_MS)
    if (this.#minuteOf.get(key.id) === minute) return
    this.#minuteOf.set(key.id, minute)
    const ids = this.#queued.get(minute)
    if (ids !== undefined) ids.push(key.id)
    else this.#queued.set(minute, [key.id])
    if (this.#scheduled) return
    this.#scheduled = true
    this.#written = this.#written.then(afterThisTick).then(() => this.#write())
  }

  /** Resolves once every use noted so far is written (or its failure logged). */
  flush(): Promise<void> {
    return this.#written
  }

  async #write(): Promise<void> {
    const queued = this.#queued
    this.#queued = new Map()
    this.#scheduled = false
    for (const [minute, ids] of queued) {
      try {
        await this.#keys.recordUse(ids, new Date(minute * MINUTE_MS).toISOString())
      } catch (error) {
        this.#logger.warn('could not record when keys were last used', {
          keys: ids.length,
          error: String((error as Error)?.message ?? error),
        })
      }
    }
  }
}

function afterThisTick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}
