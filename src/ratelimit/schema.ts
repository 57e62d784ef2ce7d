import { type Static, Type } from '@sinclair/typebox'

const WindowQuota = (name: string, example: { limit: number; used: number; reset: number }) =>
  Type.Object(
    {
      limit: Type.Integer({ minimum: 1, description: `Requests allowed per ${name}` }),
      used: Type.Integer({ minimum: 0, description: `Requests counted this ${name}` }),
      remaining: Type.Integer({ minimum: 0, description: `Requests left this ${name}` }),
      reset: Type.Integer({ description: `Unix time (seconds) at which this ${name} ends` }),
    },
    { additionalProperties: false, examples: [{ ...example, remaining: example.limit - example.used }] },
  )

/** What `GET /v1/rate_limit` answers: the key's plan, both windows and any ban, counting nothing. */
export const RateLimitStatus = Type.Object(
  {
    plan: Type.String({ description: 'The plan of the key', examples: ['free'] }),
    minute: WindowQuota('minute', { limit: 60, used: 12, reset: 1795419060 }),
    day: WindowQuota('day', { limit: 1000, used: 12, reset: 1795478400 }),
    bannedUntil: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      description: 'Unix time (seconds) at which a ban ends, or null when the key is not banned',
    }),
  },
  { additionalProperties: false },
)
export type RateLimitStatus = Static<typeof RateLimitStatus>
