import { type Static, Type } from '@sinclair/typebox'

function windowQuota(name: string, example: { limit: number; used: number; reset: number }) {
  return Type.Object(
    {
      limit: Type.Integer({ minimum: 1, description: `Requests allowed per ${name}` }),
      used: Type.Integer({ minimum: 0, description: `Requests counted this ${name}` }),
      remaining: Type.Integer({ minimum: 0, description: `Requests left this ${name}` }),
      reset: Type.Integer({ description: `Unix time (seconds) at which this ${name} ends` }),
    },
    { additionalProperties: false, examples: [{ ...example, remaining: example.limit - example.used }] },
  )
}

/** What `GET /v1/rate_limit` answers: the key's plan, both windows and any ban, counting nothing. */
export const RateLimitStatus = Type.Object(
  {
    plan: Type.String({ description: 'The plan of the key', examples: ['free'] }),
    minute: windowQuota('minute', { limit: 60, used: 12, reset: 1795419060 }),
    day: windowQuota('day', { limit: 1000, used: 12, reset: 1795478400 }),
    bannedUntil: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      description: 'Unix time (seconds) at which a ban ends, or null when the key is not banned',
    }),
  },
  { additionalProperties: false },
)
export type RateLimitStatus = Static<typeof RateLimitStatus>

/** Both windows of a subject's quota and its ban, as a limiter's reading gives them: RateLimitStatus without the plan. */
export type QuotaStatus = Omit<RateLimitStatus, 'plan'>

/** One window of a quota as a client reads it: `reset` in Unix seconds. */
export type WindowQuota = QuotaStatus['minute']
