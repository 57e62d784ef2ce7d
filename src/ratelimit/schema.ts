import { type Static, Type } from '@sinclair/typebox'
import { PLANS, type Plan } from '../keys/plans'

/** A window of the quota check's answer, with its window's part of the example. */
function windowQuota(name: string, { limit, used, reset, remaining }: WindowExample) {
  return Type.Object(
    {
      limit: Type.Integer({ minimum: 1, description: `Requests allowed per ${name}` }),
      used: Type.Integer({ minimum: 0, description: `Requests counted this ${name}` }),
      remaining: Type.Integer({ minimum: 0, description: `Requests left this ${name}` }),
      reset: Type.Integer({ description: `Unix time (seconds) at which this ${name} ends` }),
    },
    { additionalProperties: false, examples: [{ limit, used, reset, remaining }] },
  )
}

type WindowExample = { limit: number; used: number; remaining: number; reset: number }

/** The quota check's example in the document: a Free key twelve requests into its minute and its day. */
export const RATE_LIMIT_STATUS_EXAMPLE = {
  plan: 'free',
  minute: { limit: 60, used: 12, remaining: 48, reset: 1795419060 },
  day: { limit: 1000, used: 12, remaining: 988, reset: 1795478400 },
  bannedUntil: null,
}

/** What `GET /v1/rate_limit` answers: the key's plan, both windows and any ban, counting nothing. */
export const RateLimitStatus = Type.Object(
  {
    plan: Type.Unsafe<Plan>({
      type: 'string',
      enum: [...PLANS],
      description: 'The plan of the key, which sets its limits',
      examples: ['free'],
    }),
    minute: windowQuota('minute', RATE_LIMIT_STATUS_EXAMPLE.minute),
    day: windowQuota('day', RATE_LIMIT_STATUS_EXAMPLE.day),
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
