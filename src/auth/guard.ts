import { Elysia } from 'elysia'
import { type Awaitable, andThen } from '../awaitable'
import type { Callers } from '../http/callers'
import { clientAddress } from '../http/client_address'
import { type ErrorBody, type ResponseSet, refuse } from '../http/errors'
import { asHandle, HandOver } from '../http/hand_over'
import { plainRequestHook } from '../http/plain_hook'
import { isApiUrl, isPath } from '../http/url'
import type { LastUseRecorder } from '../keys/last_use'
import { PLAN_LIMITS } from '../keys/plans'
import type { ApiKey, KeyStore } from '../keys/store'
import { applyRateDecision } from '../ratelimit/apply_decision'
import { describeUsage, limiterUnavailable, type Usage } from '../ratelimit/decision'
import { FreeRequests, freeRequestLimits } from '../ratelimit/free_requests'
import type { RateLimiter } from '../ratelimit/limiter'
import type { QuotaReadings } from '../ratelimit/quota_readings'
import { RepeatedRefusal } from '../ratelimit/repeated_refusal'
import { RATE_LIMIT_PATH } from '../ratelimit/routes'
import { addressSubject, keySubject } from '../ratelimit/subject'
import { authenticate, bearerError, hasExpired, refusalReason } from './authenticate'
import { KnownCredentials } from './known_credentials'

/** The 429 of a line over the secondary limit: its plan's quota is untouched, and its headers say so. */
const FREE_REQUESTS_EXCEEDED = (perMinute: number, retryAfter: number) =>
  `Too many requests that cost no quota (quota checks, conditional GETs): at most ${perMinute} a minute; ` +
  `retry after ${retryAfter} s`

/** The 429 of an address over the secondary limit outside `/v1` (documents, redirects, unknown paths). */
const OUTSIDE_API_EXCEEDED = (perMinute: number, retryAfter: number) =>
  `Too many requests outside /v1 (the documents, unknown paths) from this address: at most ${perMinute} a minute; ` +
  `retry after ${retryAfter} s`

/** Health probes are never bounded: a load balancer asks as often as it is told to. */
const HEALTH_PATHS = ['/health', '/health/live', '/health/ready']

/** The RFC 6750 challenge sent with every 401; `challenge` adds the error when credentials were presented. */
export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"'

/**
 * The `WWW-Authenticate` value for a refused `Authorization` header (RFC 6750
 * §3): the bare challenge without credentials, else with `error` and an
 * `error_description` (the 401's message, quotes and backslashes left out, as
 * the RFC's character set requires).
 */
export function challenge(authorization: string | null, expired = false): string {
  const error = bearerError(authorization)
  if (error === undefined) return WWW_AUTHENTICATE
  const description = refusalReason(authorization, expired).replace(/["\\]/g, "'")
  return `${WWW_AUTHENTICATE}, error="${error}", error_description="${description}"`
}

/** Where a 401 points: the header that lacks a valid key. */
const AT_AUTHORIZATION = { param: 'Authorization' }

/** The methods a read-only key may use: those that never write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The 403 of a read-only key that tried to write, with its RFC 6750 §3.1 challenge. */
function refuseWrite(set: { status?: number | string; headers: Record<string, unknown> }): ErrorBody {
  set.headers['www-authenticate'] = `${WWW_AUTHENTICATE}, error="insufficient_scope"`
  return refuse(
    set,
    'insufficient_scope',
    'This API key is read-only: it may list and get animals, not create, change or delete them; use a read-write key',
    { param: 'Authorization' },
  )
}

/** What the guard needs. */
export interface ApiGuardOptions {
  keys: KeyStore
  limiter: RateLimiter
  /** Milliseconds since the epoch; tests pass their own. */
  clock: () => number
  /** Whether the first `X-Forwarded-For` hop names the client. */
  trustProxy: boolean
  /** Callers without a key on IPv6 are counted per network of this many leading bits. */
  ipv6Prefix: number
  /** The peer address of the socket a request came on, when there is one. */
  socketAddress: (request: Request) => string | undefined
  /** Where to note which key a request authenticated with. */
  callers: Callers
  /** Where to note that a key was used (its last use is kept to the minute). */
  lastUse: Pick<LastUseRecorder, 'note'>
  /** Where to leave the quota read for a quota check, for its route to answer with. */
  quotaReadings: QuotaReadings
  /** The secondary count of the requests the quota does not count; a fresh one when absent. */
  freeRequests?: FreeRequests
}

/** Whether a request is a read that may be answered 304: a `GET` (or `HEAD`) with `If-None-Match`. */
function isConditionalRead(request: Request): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && request.headers.has('if-none-match')
}

/** Whether a request is the free quota check, `GET` (or `HEAD`) of RATE_LIMIT_PATH. */
function isQuotaCheck(request: Request): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && isPath(request.url, RATE_LIMIT_PATH)
}

/**
 * The guard in front of `/v1`: identify the caller, count the request,
 * then refuse it (429; 401 without a valid key, an expired one included;
 * 403 for a read-only key that would write) or let it through. It runs
 * before routing, parsing and validation, so every outcome is counted and
 * carries the rate-limit headers, and an unknown path, a bad body or a
 * wrong method without a valid key is a 401 like any other. Two requests
 * with a valid key are not counted here: the quota check, never, and a
 * conditional GET, once its answer is known (ratelimit/settle.ts). The
 * quota check's headers are written here, from the reading its route
 * answers with, so an answer refused after the guard (a 431) carries them.
 *
 * It comes in two parts, as Elysia runs them. `deciding` is a wrap, the
 * innermost (src/app.ts uses it first, so a CORS preflight is answered
 * before it, uncounted): with a limiter that may answer later (Redis) it
 * authenticates and asks the limiter, waiting for the answer when it must
 * before Elysia's chain begins. `applying` is the `onRequest` hook, in its
 * place after the deprecation headers, that writes the decision into the
 * answer (and with a limiter that answers at once, decides it too). It is
 * plain whatever the limiter, so Elysia compiles its chain without a
 * promise and a refusal decided at once (a ban the Redis limiter already
 * knows) reaches Bun without one (bench/README.md, "The guard decided
 * before the chain").
 */
export function apiGuard({
  keys,
  limiter,
  clock,
  trustProxy,
  ipv6Prefix,
  socketAddress,
  callers,
  lastUse,
  quotaReadings,
  freeRequests = new FreeRequests(),
}: ApiGuardOptions) {
  const known = new KnownCredentials()
  const decisions = new RepeatedRefusal()
  /** After the quota's headers are written: a 429 when the line sends too many requests that cost no quota. */
  const boundFree = (set: ResponseSet, key: ApiKey, now: number): ErrorBody | undefined => {
    const over = freeRequests.count(keySubject(key), key, now)
    if (over === undefined) return undefined
    set.headers['retry-after'] = String(over.retryAfter)
    return refuse(set, 'rate_limit_exceeded', FREE_REQUESTS_EXCEEDED(freeRequestLimits(key).rpm, over.retryAfter))
  }
  /** Outside `/v1` nothing is counted against a quota; each address is bounded there as a key line is (FreeRequests). */
  const boundOutsideApi = (request: Request, set: ResponseSet): ErrorBody | undefined => {
    if (HEALTH_PATHS.some((path) => isPath(request.url, path))) return undefined
    const address = addressSubject(clientAddress(request, socketAddress(request), trustProxy), ipv6Prefix)
    const over = freeRequests.count(address, PLAN_LIMITS.free, clock())
    if (over === undefined) return undefined
    set.headers['retry-after'] = String(over.retryAfter)
    return refuse(
      set,
      'rate_limit_exceeded',
      OUTSIDE_API_EXCEEDED(freeRequestLimits(PLAN_LIMITS.free).rpm, over.retryAfter),
    )
  }
  const decide = (request: Request): Awaitable<Verdict> => {
    if (!isApiUrl(request.url)) return (set) => boundOutsideApi(request, set)
    const authorization = request.headers.get('authorization')
    const now = clock()
    const presented = authenticate(authorization, keys, known)
    // An expired key is refused as an unknown one is, with its own message.
    const expired = presented !== undefined && hasExpired(presented, now)
    const key = expired ? undefined : presented
    // Counts the request (on the key's quota owner, or the address), then lets it through or refuses it (429, or 401 without a valid key).
    const count = (): Awaitable<Verdict> => {
      // Without a valid key the caller is its address (an IPv6 one per network), on the Free plan's limits.
      const decision = key
        ? limiter.consume(keySubject(key), key, now)
        : limiter.consume(
            addressSubject(clientAddress(request, socketAddress(request), trustProxy), ipv6Prefix),
            PLAN_LIMITS.free,
            now,
          )
      return andThen(decision, (decided) => (set: ResponseSet) => {
        const refusal = decisions.apply(set, decided)
        if (key !== undefined) {
          // Counted against the key: our own 5xx gives it back (ratelimit/settle.ts).
          if (refusal === undefined) callers.counted(request, now, decided.storeVersion)
          return refusal
        }
        if (refusal !== undefined) return refusal
        set.headers['www-authenticate'] = challenge(authorization, expired)
        return refuse(set, 'unauthorized', refusalReason(authorization, expired), AT_AUTHORIZATION)
      })
    }
    if (key === undefined) return count()
    callers.authenticated(request, key)
    lastUse.note(key, now)
    if (isQuotaCheck(request)) {
      // Counts nothing, also over the limit or banned: read, the headers written, the reading left for the route.
      return andThen(limiter.peek(keySubject(key), key, now), (usage) => (set: ResponseSet) => {
        if (usage === undefined) return applyRateDecision(set, limiterUnavailable(key, now))
        applyRateDecision(set, describeUsage(usage, key, now))
        quotaReadings.note(request, { usage, at: now })
        return boundFree(set, key, now)
      })
    }
    if (key.access === 'read-only' && !READ_METHODS.has(request.method)) {
      // Counted like every answer to a valid key, then refused, unless the count refused it first.
      return andThen(count(), (counted) => (set: ResponseSet) => counted(set) ?? refuseWrite(set))
    }
    if (!isConditionalRead(request)) return count()
    // A conditional GET with quota left goes on uncounted; its answer decides (a 304 is free: ratelimit/settle.ts).
    const decideConditional = (usage: Usage | undefined): Awaitable<Verdict> => {
      const view = usage === undefined ? undefined : describeUsage(usage, key, now)
      // Over its limit, banned, or a limiter that cannot be asked: counted, and so refused, as any request.
      if (view === undefined || view.remaining === 0) return count()
      return (set) => {
        applyRateDecision(set, view)
        const refused = boundFree(set, key, now)
        if (refused === undefined) callers.letThroughUncounted(request, usage?.storeVersion)
        return refused
      }
    }
    return andThen(limiter.peek(keySubject(key), key, now), decideConditional)
  }
  // With a limiter that answers at once the hook decides itself: a wrap costs every request a call and a closure
  // (Elysia makes each wrap's function anew for each request).
  if (limiter.answersAtOnce === true)
    return {
      deciding: new Elysia({ name: 'api-guard-deciding' }),
      applying: new Elysia({ name: 'api-guard' }).onRequest(
        plainRequestHook((request, set) => {
          const verdict = decide(request)
          if (verdict instanceof Promise) throw new Error('a limiter that answers at once gave a promise')
          return verdict(set)
        }),
      ),
    }
  // Each request's verdict, from the wrap to the hook; a decision that failed is thrown there, for the error mapper.
  const verdicts = new HandOver<Verdict>()
  return {
    deciding: new Elysia({ name: 'api-guard-deciding' }).wrap((handle) => (request: Request) => {
      const rest = asHandle(handle)
      let decided: Awaitable<Verdict>
      try {
        decided = decide(request)
      } catch (error) {
        decided = failed(error)
      }
      if (!(decided instanceof Promise)) return verdicts.hand(request, decided, rest)
      return decided.then(
        (verdict) => verdicts.hand(request, verdict, rest),
        (error) => verdicts.hand(request, failed(error), rest),
      )
    }),
    applying: new Elysia({ name: 'api-guard' }).onRequest(
      plainRequestHook((request, set) => {
        const verdict = verdicts.take(request)
        if (verdict === undefined) throw new Error('the guard has no decision for this request: its wrap did not run')
        return verdict(set)
      }),
    ),
  }
}

/** A refusal to answer with: its Error body, or the Response made for a refusal that repeats (ratelimit/repeated_refusal.ts). */
type Refusal = ErrorBody | Response

/** The guard's decision for one request, applied to its answer: a refusal to answer with, or undefined to let it through. */
type Verdict = (set: ResponseSet) => Refusal | undefined

/** The verdict of a decision that failed: the failure, thrown where the error mapper sees it. */
function failed(error: unknown): Verdict {
  return () => {
    throw error
  }
}
