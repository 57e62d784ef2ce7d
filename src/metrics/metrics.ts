import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import type { Awaitable } from '../awaitable'
import type { RefusalCode } from '../ratelimit/decision'
import type { Operation } from './operation'
import { RequestTallies } from './request_tallies'

/** What the metrics read when they are scraped, from the parts this deployment has. */
export interface MetricSources {
  /** The in-memory limiter's (or the Redis limiter's fallback's) subjects held today, keys and addresses, and bans. */
  limiterSizes?: () => { today: number; anonymous: number; banned: number }
  /** Whether Redis answers; only with REDIS_URL. */
  redisAnswers?: () => Awaitable<boolean>
  /** The page cache's hits and misses since start: with SQLite, or PostgreSQL with Redis. */
  pageCache?: () => { hits: number; misses: number }
  /** The running Bun's version, for the build info. */
  bunVersion: string
  /** The service's version (package.json). */
  version: string
}

/**
 * prom-client's default collectors that say nothing true on Bun, left out:
 * V8's heap spaces (on JavaScriptCore every space but "old" reads 0), the
 * active handles, requests and resources (Bun returns empty lists: always 0),
 * GC durations (Bun's perf_hooks reports no `gc` entries: the metric would
 * stay empty), and `nodejs_version_info` (the Node.js version Bun imitates;
 * `animal_store_build_info` names Bun's).
 */
export const LEFT_OUT_DEFAULT_METRICS = [
  'nodejs_heap_space_size_total_bytes',
  'nodejs_heap_space_size_used_bytes',
  'nodejs_heap_space_size_available_bytes',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'nodejs_gc_duration_seconds',
  'nodejs_version_info',
]

/**
 * The service's Prometheus metrics (prom-client), served on the admin
 * listener: requests and their latency by operation, rate-limit refusals,
 * the limiter's size, Redis and its fallback, the page cache, database
 * errors, and the process's own. Exists only with ADMIN_PORT: without it no
 * request does any of this work.
 */
export class ServiceMetrics {
  readonly registry = new Registry()
  readonly #requests = new RequestTallies()
  readonly #refusals: Counter<'reason'>
  readonly #fallbackCounted: Counter
  readonly #databaseErrors: Counter

  constructor(sources: MetricSources) {
    const registers = [this.registry]
    this.registry.registerMetric(
      this.#requests.requestsMetric(
        'animal_store_http_requests_total',
        'Requests answered, by operation (OpenAPI operationId, docs, other) and status code',
      ),
    )
    this.registry.registerMetric(
      this.#requests.latencyMetric(
        'animal_store_http_request_duration_seconds',
        'Time from the request reaching the app to its response, by operation',
      ),
    )
    this.#refusals = new Counter({
      name: 'animal_store_rate_limit_refusals_total',
      help: 'Requests the rate limiter refused, by reason (rate_limit_exceeded, key_banned, rate_limiter_unavailable)',
      labelNames: ['reason'],
      registers,
    })
    this.#fallbackCounted = new Counter({
      name: 'animal_store_rate_limit_fallback_requests_total',
      help: 'Requests counted by the in-process fallback while Redis did not answer (REDIS_FAILURE_MODE=open)',
      registers,
    })
    this.#databaseErrors = new Counter({
      name: 'animal_store_database_errors_total',
      help: 'Requests answered 503 because the database did not answer',
      registers,
    })
    const { limiterSizes, redisAnswers, pageCache } = sources
    if (limiterSizes !== undefined) {
      new Gauge({
        name: 'animal_store_rate_limit_subjects',
        help: 'Subjects the in-memory limiter holds for today, by kind (key, address), and bans in force',
        labelNames: ['kind'],
        registers,
        collect() {
          const { today, anonymous, banned } = limiterSizes()
          this.set({ kind: 'key' }, today - anonymous)
          this.set({ kind: 'address' }, anonymous)
          this.set({ kind: 'banned' }, banned)
        },
      })
    }
    if (redisAnswers !== undefined) {
      new Gauge({
        name: 'animal_store_redis_up',
        help: 'Whether Redis answers (1) or not (0)',
        registers,
        async collect() {
          this.set((await redisAnswers()) ? 1 : 0)
        },
      })
    }
    if (pageCache !== undefined) {
      new Counter({
        name: 'animal_store_page_cache_requests_total',
        help: 'Page reads, by whether the page cache had the page (hit) or the database was read (miss)',
        labelNames: ['result'],
        registers,
        collect() {
          const { hits, misses } = pageCache()
          this.reset()
          this.inc({ result: 'hit' }, hits)
          this.inc({ result: 'miss' }, misses)
        },
      })
    }
    new Gauge({
      name: 'animal_store_build_info',
      help: 'The running build: the service version and the Bun runtime; always 1',
      labelNames: ['version', 'bun'],
      registers,
    }).set({ version: sources.version, bun: sources.bunVersion }, 1)
    collectDefaultMetrics({ register: this.registry })
    for (const name of LEFT_OUT_DEFAULT_METRICS) this.registry.removeSingleMetric(name)
  }

  /** Counts one answered request and its latency. */
  requestAnswered(operation: Operation, status: number, seconds: number): void {
    this.#requests.record(operation, status, seconds)
  }

  /** Counts a request the limiter refused. */
  refused(reason: RefusalCode): void {
    this.#refusals.inc({ reason })
  }

  /** Counts a request the fallback limiter counted while Redis did not answer. */
  fallbackCounted(): void {
    this.#fallbackCounted.inc()
  }

  /** Counts a request answered 503 because the database did not answer. */
  databaseError(): void {
    this.#databaseErrors.inc()
  }

  /** The exposition, in Prometheus' text format, and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType }
  }
}
