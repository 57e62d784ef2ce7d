import { Elysia } from 'elysia'
import type { Awaitable } from '../awaitable'
import { refuse } from '../http/errors'
import type { PetStore } from '../pets/store'
import type { LimiterHealth, RateLimiter } from '../ratelimit/limiter'

/** What `/health` asks. */
export interface HealthChecks {
  databaseAnswers: () => Awaitable<boolean>
  limiterHealth: () => Awaitable<LimiterHealth>
}

/** The checks of a service's database and limiter: a limiter that cannot tell is `ok`. */
export function healthChecks(pets: Pick<PetStore, 'answers'>, limiter: Pick<RateLimiter, 'health'>): HealthChecks {
  return { databaseAnswers: () => pets.answers(), limiterHealth: () => limiter.health?.() ?? 'ok' }
}

/**
 * `GET /health`, without a key: 200 `{"status":"ok"}` while the database
 * answers and the limiter counts; 200 `{"status":"degraded","rateLimiter":"unreachable"}`
 * while a shared limiter's Redis is down and requests go on (REDIS_FAILURE_MODE=open);
 * 503 when the database does not answer, or Redis is down and requests are refused.
 */
export function healthRoutes({ databaseAnswers, limiterHealth }: HealthChecks) {
  return new Elysia({ name: 'health' }).get(
    '/health',
    async ({ set }) => {
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
    },
    { detail: { hide: true } },
  )
}
