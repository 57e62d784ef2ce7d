import type { Logger } from '../log'

/**
 * What the in-memory limiter holds, as written to the database: the UTC day
 * its counters belong to, each numeric subject's packed counters as pairs of
 * float64 (subject, value), and in JSON the rest (counters too wide to pack,
 * text subjects, bans).
 */
export interface LimiterSnapshot {
  /** Epoch ms at which it was taken. */
  savedAt: number
  /** Days since the epoch (UTC) of the counters. */
  day: number
  counters: Float64Array
  extra: SnapshotExtra
}

/** The part of a snapshot that does not fit the packed pairs. */
export interface SnapshotExtra {
  /** Subject, usedToday, minuteOfDay, usedThisMinute, refusedThisMinute. */
  wide: [number | string, number, number, number, number][]
  /** Text subjects and their packed counters. */
  text: [string, number][]
  /** Subject and the epoch ms at which its ban ends. */
  bans: [number | string, number][]
}

/** Where a snapshot is kept between runs: one per database. */
export interface LimiterStateStore {
  save(snapshot: LimiterSnapshot): void
  load(): LimiterSnapshot | undefined
}

/** A limiter whose state can be kept: the MemoryRateLimiter. */
export interface SnapshotSource {
  /** Grows with every change, so an unchanged limiter is not written again. */
  readonly changes: number
  snapshot(now: number): LimiterSnapshot
  restore(snapshot: LimiterSnapshot, now: number): void
}

/**
 * How often a running server writes the limiter's state: a kill -9 forgets at
 * most the requests of this interval. Writing skips an unchanged limiter, and
 * its pause is small beside the interval (bench/README.md, "Keeping the
 * limiter across restarts").
 */
export const SNAPSHOT_INTERVAL_MS = 5_000

/** The keeper `keepLimiterState` starts; `stop` writes a last snapshot. */
export interface LimiterStateKeeper {
  stop(): void
}

/**
 * Reads the last snapshot back into `limiter` (the counters only if they are
 * today's, bans until they end), then writes one every `intervalMs` while
 * something changed, and a last one on `stop` (a graceful stop). A write that
 * fails is logged and retried at the next interval; it never stops serving.
 */
export function keepLimiterState(
  limiter: SnapshotSource,
  store: LimiterStateStore,
  { clock, logger, intervalMs = SNAPSHOT_INTERVAL_MS }: { clock: () => number; logger: Logger; intervalMs?: number },
): LimiterStateKeeper {
  const saved = store.load()
  if (saved !== undefined) limiter.restore(saved, clock())
  let written = limiter.changes
  const write = (): void => {
    if (limiter.changes === written) return
    const changes = limiter.changes
    try {
      store.save(limiter.snapshot(clock()))
      written = changes
    } catch (error) {
      logger.warn('rate limiter: could not save its state; trying again', {
        error: String((error as Error)?.message ?? error),
      })
    }
  }
  const timer = setInterval(write, intervalMs)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      write()
    },
  }
}
