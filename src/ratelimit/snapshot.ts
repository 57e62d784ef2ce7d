import { hostname } from 'node:os'
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

/** A process that writes snapshots: one owner row per run of the server. */
export interface SnapshotOwner {
  /** `host/pid/start`: unique per run, so a restart is a new owner that takes over the old one's snapshot. */
  owner: string
  host: string
  pid: number
}

/** What a store knows of another owner, to tell whether it is gone. */
export interface OwnerRecord extends SnapshotOwner {
  /** Epoch ms of its registration or of its last complete snapshot. */
  seenAt: number
  /** Whether it wrote its last snapshot on a graceful stop. */
  stopped: boolean
}

/** One stored part of a snapshot, as `adopt` lists them. */
export interface StoredPart {
  owner: string
  generation: number
  part: number
}

/**
 * Where snapshots are kept between runs, in the database the server serves
 * from. Each serving process writes its own, in parts, and a start takes
 * over the snapshots of processes that are gone, so two processes on one
 * file never overwrite each other's.
 */
export interface LimiterStateStore {
  /**
   * Registers `me`, and in one transaction takes over every owner that
   * `gone` says has ended (and that no live owner took over first): its
   * last complete snapshot becomes part of `me`'s, until `me` completes one
   * of its own. Returns the parts to read back, in order.
   */
  adopt(me: SnapshotOwner, gone: (owner: OwnerRecord) => boolean, now: number): StoredPart[]
  /** One stored part; undefined if it is gone. */
  read(part: StoredPart): LimiterSnapshot | undefined
  /** Writes one part of generation `generation` of `owner`'s snapshot. */
  write(owner: string, generation: number, part: number, snapshot: LimiterSnapshot): void
  /**
   * Makes `generation` the owner's snapshot, in one transaction: its older
   * parts and the snapshots it took over are dropped. `stopped` marks a
   * graceful stop, after which the next start takes it over at once (null:
   * stopped before it wrote any).
   */
  complete(owner: string, generation: number | null, now: number, stopped: boolean): void
}

/** A limiter whose state can be kept: the MemoryRateLimiter. */
export interface SnapshotSource {
  /** Grows with every change, so an unchanged limiter is not written again. */
  readonly changes: number
  /** The state in parts of at most `partSize` subjects, each built when asked for. */
  snapshotParts(now: number, partSize?: number): Iterator<LimiterSnapshot, void>
  /** Adds a snapshot part to what is held. */
  restore(snapshot: LimiterSnapshot, now: number): void
}

/**
 * How often a running server writes the limiter's state: a kill -9 forgets at
 * most the requests of this interval. Writing skips an unchanged limiter.
 */
export const SNAPSHOT_INTERVAL_MS = 5_000

/**
 * Subjects per part: each part is built, written and read back in a few
 * milliseconds, and the event loop runs between parts, so a million callers
 * never stall requests (bench/README.md, "Keeping the limiter across restarts").
 */
export const PART_SUBJECTS = 2_048

/** How old another host's snapshot may be before it counts as gone even if its process never said it stopped. */
const FOREIGN_OWNER_KEPT_MS = 24 * 60 * 60 * 1000

/** The keeper `keepLimiterState` starts. */
export interface LimiterStateKeeper {
  /** Settles once every part taken over at start has been read back. */
  readonly loaded: Promise<void>
  /** Stops the timer and writes a last, whole snapshot at once (a graceful stop). */
  stop(): void
}

/** This process, as a snapshot owner. */
export function thisProcess(startedAt = Date.now()): SnapshotOwner {
  const host = hostname()
  return { owner: `${host}/${process.pid}/${startedAt}`, host, pid: process.pid }
}

/**
 * Whether another owner has ended: it said so on a graceful stop; or it ran
 * on this host and its process is gone (a kill -9); or it ran elsewhere and
 * wrote nothing for a day (a pid cannot be asked across hosts).
 */
export function ownerGone(here: SnapshotOwner, now: number): (owner: OwnerRecord) => boolean {
  return (owner) => {
    if (owner.stopped) return true
    if (owner.host !== here.host) return now - owner.seenAt > FOREIGN_OWNER_KEPT_MS
    return owner.pid !== here.pid && !processRuns(owner.pid)
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Subjects a part is read back in at a time, between which requests run. */
const READ_SLICE_SUBJECTS = 512

/** A part in slices of READ_SLICE_SUBJECTS; the first carries the bans, wide counters and text subjects. */
function sliced(part: LimiterSnapshot): LimiterSnapshot[] {
  const slices: LimiterSnapshot[] = []
  const step = 2 * READ_SLICE_SUBJECTS
  for (let start = 0; start === 0 || start < part.counters.length; start += step)
    slices.push({
      ...part,
      counters: part.counters.subarray(start, start + step),
      extra: start === 0 ? part.extra : { wide: [], text: [], bans: [] },
    })
  return slices
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Takes over the snapshots stopped processes left (adding their counts, so
 * what two processes on one file counted is all kept) and reads them back
 * into `limiter`: the first part (keys and bans come first) at once, the
 * rest part by part, letting requests run between them. Then writes the
 * limiter's state every `intervalMs` while something changed, part by part,
 * and a last one, whole, on `stop` (a graceful stop). A write that fails is
 * logged and tried again at the next interval; it never stops serving.
 */
export function keepLimiterState(
  limiter: SnapshotSource,
  store: LimiterStateStore,
  {
    clock,
    logger,
    intervalMs = SNAPSHOT_INTERVAL_MS,
    partSize = PART_SUBJECTS,
    me = thisProcess(clock()),
  }: { clock: () => number; logger: Logger; intervalMs?: number; partSize?: number; me?: SnapshotOwner },
): LimiterStateKeeper {
  const warn = (what: string, error: unknown) =>
    logger.warn(`rate limiter: could not ${what}; trying again`, { error: String((error as Error)?.message ?? error) })
  let toRead: StoredPart[] = []
  try {
    toRead = store.adopt(me, ownerGone(me, clock()), clock())
  } catch (error) {
    warn('read back its saved state', error)
  }
  // Each part is read back in slices, the event loop running between them.
  let slices: LimiterSnapshot[] = []
  const reading = () => toRead.length > 0 || slices.length > 0
  const readSome = (): void => {
    if (slices.length === 0) {
      const part = store.read(toRead.shift()!)
      if (part === undefined) return
      slices = sliced(part)
    }
    limiter.restore(slices.shift()!, clock())
  }
  const tookOver = reading()
  if (tookOver) readSome()
  const loaded = (async () => {
    while (reading()) {
      await nextTurn()
      if (reading()) readSome()
    }
  })().catch((error) => warn('read back its saved state', error))

  let generation = clock()
  let completed: number | undefined
  // Parts taken over are written again as this process's own before the other owners' rows go.
  let written = tookOver ? -1 : limiter.changes
  let writing = false
  let stopped = false
  const begin = () => ({ changes: limiter.changes, current: ++generation, index: 0 })
  const finish = ({ changes, current }: { changes: number; current: number }, stop: boolean) => {
    store.complete(me.owner, current, clock(), stop)
    completed = current
    written = changes
  }
  /** Writes the state part by part, letting the event loop run between parts; a stop abandons it. */
  const writePaced = async (): Promise<void> => {
    const run = begin()
    const parts = limiter.snapshotParts(clock(), partSize)
    for (let next = parts.next(); !next.done; next = parts.next()) {
      store.write(me.owner, run.current, run.index++, next.value)
      await nextTurn()
      if (stopped) return
    }
    finish(run, false)
  }
  /** On stop: the whole state at once, or only the mark of a graceful stop when nothing changed. */
  const writeLast = (): void => {
    if (limiter.changes === written) {
      store.complete(me.owner, completed ?? null, clock(), true)
      return
    }
    const run = begin()
    const parts = limiter.snapshotParts(clock())
    for (let next = parts.next(); !next.done; next = parts.next())
      store.write(me.owner, run.current, run.index++, next.value)
    finish(run, true)
  }
  const timer = setInterval(() => {
    if (writing || reading() || limiter.changes === written) return
    writing = true
    writePaced()
      .catch((error) => warn('save its state', error))
      .finally(() => {
        writing = false
      })
  }, intervalMs)
  timer.unref()
  return {
    loaded,
    stop() {
      clearInterval(timer)
      stopped = true
      try {
        // What was taken over and not read yet is read now, so the last snapshot holds it too.
        while (reading()) readSome()
        writeLast()
      } catch (error) {
        warn('save its state', error)
      }
    },
  }
}
