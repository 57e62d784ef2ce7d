import { ERROR_CODES } from '../errors'
import { kib, MAX_BODY_BYTES } from '../http/limits'
import { describePlans } from '../keys/plans'
import { IDEMPOTENCY_TTL_MS } from '../pets/idempotency'
import { GET_PET_SUNSET } from '../pets/routes'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../pets/schema'
import { BAN_DURATION_TEXT } from '../ratelimit/limiter'

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, { status, meaning }]) => `| ${status} | \`${code}\` | ${meaning} |`)
  .join('\n')

/**
 * The rules a client of the API needs, shown at the top of `/docs`: keys,
 * errors, rate limits, paging, retries, deprecation. Every number in it comes
 * from the constant the service itself obeys.
 */
export const API_DESCRIPTION = `Manages the animals held in a store.

## Keys
Every operation needs an API key as a bearer token: \`Authorization: Bearer ask_...\` (press **Authorize**
and paste it). Without a valid key the answer is 401 \`unauthorized\` with \`WWW-Authenticate\`.

## Errors
Every error is an \`Error\` object, \`{"code": "...", "message": "...", "status": N}\`, whose \`status\`
equals the HTTP status and whose message names the offending field, parameter or header. Under \`/v1\`
the key is checked first: an unknown path, a wrong method or a bad body without a valid key is a 401.

| status | code | when |
|---|---|---|
${errorTable}

## Rate limits
Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix
seconds): per key, a clock-minute and a UTC-day window (per minute/per day: ${describePlans()}). The
headers describe the window with fewer requests left. Every request with a valid key counts, whatever its
answer, except a 429; requests without a valid key are counted per client address at the Free limits.
Over the limit: 429 \`rate_limit_exceeded\` with \`Retry-After\`. Hammering on after 429s (more refusals in
a minute than the minute's limit) bans the key for ${BAN_DURATION_TEXT} (\`key_banned\`): back off instead.

## Paging
\`GET /pets\` returns a plain array in ascending id order, \`limit\` from 1 to ${MAX_LIMIT} (default
${DEFAULT_LIMIT}). When more follow, the response carries \`Link: <...>; rel="next"\` with the next page's
URL (keyset paging with \`after\`); follow it until there is none. Unknown query parameters are refused.

## Retrying a create
Send an \`Idempotency-Key\` (1 to 255 printable ASCII characters, e.g. a UUID) with \`POST /pets\`: for
${IDEMPOTENCY_TTL_MS / 3_600_000} hours a retry with the same key and body answers the first 201 again, with
\`Idempotent-Replayed: true\`, and creates nothing; the same key with another body is 422
\`idempotency_key_reused\`. Bodies are JSON objects of at most ${kib(MAX_BODY_BYTES)}.

## Deprecation
\`GET /pets/{petId}\` is deprecated and goes away at its \`Sunset\` (${GET_PET_SUNSET}); its answers carry
\`Deprecation\`, \`Sunset\` and \`Link: <.../v1/pets>; rel="successor-version"\`.`
