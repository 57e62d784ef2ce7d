/** The plans a key can be on, cheapest first. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

/** Requests per clock minute and per UTC day. */
export interface Limits {
  rpm: number
  rpd: number
}

/** The fixed quotas; Enterprise has none here because each key's is agreed individually. */
export const PLAN_LIMITS: Readonly<Record<Exclude<Plan, 'enterprise'>, Readonly<Limits>>> = {
  free: { rpm: 60, rpd: 1_000 },
  pro: { rpm: 300, rpd: 10_000 },
  business: { rpm: 1_000, rpd: 100_000 },
}

/** Whether `value` names a plan. */
export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value)
}

/**
 * The limits a key on `plan` gets: the plan's own, or for Enterprise the
 * custom ones, which are required there and refused elsewhere.
 */
export function limitsFor(plan: Plan, custom: Partial<Limits>): Limits {
  const given = custom.rpm !== undefined || custom.rpd !== undefined
  if (plan !== 'enterprise') {
    if (given)
      throw new RangeError(
        `--rpm and --rpd are only for the enterprise plan; ${plan} has ${PLAN_LIMITS[plan].rpm}/min and ${PLAN_LIMITS[plan].rpd}/day`,
      )
    return { ...PLAN_LIMITS[plan] }
  }
  if (custom.rpm === undefined || custom.rpd === undefined)
    throw new RangeError('The enterprise plan needs both --rpm and --rpd')
  return { rpm: custom.rpm, rpd: custom.rpd }
}

/** Each plan's quotas in words, per minute/per day: "Free 60/1,000, Pro 300/10,000, ..., Enterprise custom". */
export function describePlans(): string {
  const count = (n: number) => n.toLocaleString('en-US')
  const fixed = Object.entries(PLAN_LIMITS).map(
    ([plan, { rpm, rpd }]) => `${plan[0]!.toUpperCase()}${plan.slice(1)} ${count(rpm)}/${count(rpd)}`,
  )
  return [...fixed, 'Enterprise custom'].join(', ')
}
