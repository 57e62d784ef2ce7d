import { Elysia } from 'elysia'
import type { Awaitable } from '../awaitable'
import { type ErrorBody, type ResponseSet, refuse } from '../http/errors'
import type { PetStore } from '../pets/store'
import type { LimiterHealth, RateLimiter } from '../ratelimit/limiter'

/** What `/health` asks. */
export interface HealthChecks {
  databaseAnswers: () => Awaitable<boolean>
  limiterHealth: () => Awaitable<LimiterHealth>
  /** Whether the service has begun to stop (it still answers, with `Connection: close`): not ready for more. */
  stopping: () => boolean
}

/** The checks of a service's database and limiter: a limiter that cannot tell is `ok`. */
export function healthChecks(
  pets: Pick<PetStore, 'answers'>,
  limiter: Pick<RateLimiter, 'health'>,
  stopping: () => boolean = () => false,
): HealthChecks {
  return { databaseAnswers: () => pets.answers(), limiterHealth: () => limiter.health?.() ?? 'ok', stopping }
}

/** What `/health` and `/health/ready` answer while the service can serve. */
type Serving = { status: 'ok' } | { status: 'degraded'; rateLimiter: 'unreachable' }

/**
 * The health endpoints, without a key, on the public port and the admin
 * listener alike (docs/operations.md, "Health"):
 * - `GET /health`: 200 `{"status":"ok"}` while the database answers and the
 *   limiter counts; 200 `{"status":"degraded","rateLimiter":"unreachable"}`
 *   while a shared limiter's Redis is down and requests go on
 *   (REDIS_FAILURE_MODE=open); 503 when the database does not answer, or
 *   Redis is down and requests are refused.
 * - `GET /health/live` (a liveness probe): 200 whenever the process answers
 *   at all; it asks nothing, so a slow database never gets the process
 *   restarted.
 * - `GET /health/ready` (a readiness probe): as `/health`, and 503 from the
 *   moment the service begins to stop, so a load balancer sends it nothing new.
 */
export function healthRoutes({ databaseAnswers, limiterHealth, stopping }: HealthChecks) {
  const serving = async (set: ResponseSet): Promise<Serving | ErrorBody> => {
    let answers = false
    try {
      answers = await databaseAnswers()
    } catch {
      answers = false
    }
    if (!answers) return refuse(set, 'unavailable', 'The database does not answer')
    const limiter = await limiterHealth()
    if (limiter === 'ok') return { status: 'ok' }
    if (limiter === 'degraded') return { status: 'degraded', rateLimiter: 'unreachable' }
    return refuse(set, 'unavailable', 'The rate limiter (Redis) does not answer')
  }
  return new Elysia({ name: 'health' })
    .get('/health', ({ set }) => serving(set), { detail: { hide: true } })
    .get('/health/live', () => ({ status: 'ok' }), { detail: { hide: true } })
    .get(
      '/health/ready',
      ({ set }) => (stopping() ? refuse(set, 'unavailable', 'The service is stopping') : serving(set)),
      { detail: { hide: true } },
    )
}
