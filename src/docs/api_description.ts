import { ERROR_CODES } from '../http/errors'
import { kib, MAX_BODY_BYTES } from '../http/limits'
import { describePlans } from '../keys/plans'
import { movesFrom } from '../pets/changes'
import { GET_PET_DEPRECATED, GET_PET_SUNSET } from '../pets/deprecation'
import { IDEMPOTENCY_TTL_MS } from '../pets/idempotency'
import { DEFAULT_LIMIT, MAX_ID, MAX_LIMIT } from '../pets/schema'
import { DEFAULT_IPV6_PREFIX } from '../ratelimit/subject'
import { BAN_DURATION_TEXT } from '../ratelimit/windows'

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, { status, meaning }]) => `| ${status} | \`${code}\` | ${meaning} |`)
  .join('\n')

const idempotencyHours = IDEMPOTENCY_TTL_MS / 3_600_000

/** The status moves in words, from the rule the stores obey: "available → pending or sold, ...; sold is final". */
function describeMoves(): string {
  const statuses = ['available', 'pending', 'sold'] as const
  const moves = statuses.filter((from) => movesFrom(from).length > 0)
  const final = statuses.filter((from) => movesFrom(from).length === 0)
  return `${moves
    .map(
      (from) =>
        `\`${from}\` → ${movesFrom(from)
          .map((to) => `\`${to}\``)
          .join(' or ')}`,
    )
    .join(', ')}; ${final.map((s) => `\`${s}\``).join(', ')} is final`
}

/**
 * The rules a client of the API needs, shown at the top of `/docs`: keys,
 * bodies, paging, retries, errors, rate limits, deprecation. Every number in
 * it comes from the constant the service itself obeys.
 */
export const API_DESCRIPTION = `Manages the animals held in a store.

## Getting a key and trying it here
1. Get an API key (\`ask_...\`) from whoever runs the service. They make one with
   \`animal-store keys create --plan free --name NAME\` (from the source tree:
   \`npm run keys -- create --plan free --name NAME\`); the first start on an empty database prints one
   Free key on its own.
2. Press **Authorize** below, paste the key, and close the dialog. The key stays in this page only: nothing
   keeps it in the browser, so a reload or a new tab asks for it again.
3. Open an operation, press **Try it out**, then **Execute**.

## Keys
Every operation needs an API key as a bearer token: \`Authorization: Bearer ask_...\` (the word
\`Bearer\` in any case). Under \`/v1\` the key is
checked before anything else: without a valid one, an unknown path, a wrong method or a bad body is a
401 \`unauthorized\` with \`WWW-Authenticate\` like any other request. A presented key that is malformed,
unknown, revoked or expired adds \`error="invalid_token"\` and a description to the challenge (RFC 6750 §3);
an expired key's message says it expired. A key may be **read-only**: it lists and gets, and a create
with it is a 403 \`insufficient_scope\` with \`WWW-Authenticate: Bearer realm="animal-store",
error="insufficient_scope"\`, counted like every answer to a valid key. Such a key is safe to put in a
storefront page. When the operator rolls a key, the old and the new one work side by side until the
old one expires, and they share one quota.

## Creating an animal
\`POST /pets\` takes a JSON object of at most ${kib(MAX_BODY_BYTES)} (\`Content-Type: application/json\`):
- \`name\`: 1 to 255 characters, not only white space, counted in UTF-16 code units (most emoji count as two).
- \`categoryId\`: an integer from 1 to ${MAX_ID} (2^53 − 1). A number a JSON parser would round
  (\`9007199254740993\`, \`1.0000000000000001\`) is refused, never rounded; \`1.0\` and \`1e3\` are exact.
- \`status\`: \`available\` (the default), \`pending\` or \`sold\`.
- Any other property, \`id\` included, is a 400 naming it; so is a key that shadows a built-in object
  property (\`__proto__\`, \`toString\`) anywhere in the body.
- Text must be well-formed Unicode without U+0000: a lone surrogate or a NUL is a 400, not altered. A name
  of only invisible characters (zero-width spaces, joiners, a byte-order mark) is blank, and refused.
- Each property once: a key sent twice in one object is a 400 naming it (JSON parsers would keep one of them
  silently). A body is sent uncompressed: \`Content-Encoding\` other than \`identity\` is a 415 naming it.
- Leaving \`status\` out and sending \`"status": "available"\` are the same create: an \`Idempotency-Key\` retry
  that spells the default out replays the first 201.

## Reserving, selling and correcting an animal (experimental)
These operations are new in version 1.2 and marked experimental (\`x-stability: experimental\`): they may still
change. \`PATCH /pets/{petId}\` changes the fields it names (\`name\`, \`categoryId\`, \`status\`; a JSON Merge
Patch, \`Content-Type: application/merge-patch+json\` or \`application/json\`); \`DELETE /pets/{petId}\`
removes a mistake (204); \`GET /store/inventory\` counts the animals by status, exactly.
- Reserve: \`{"status": "pending"}\`. Sell: \`{"status": "sold"}\`. Release a reservation: \`{"status":
  "available"}\`. A status moves ${describeMoves()}: any other move is a 409 \`invalid_transition\` naming both.
- Correct: \`{"name": "Rex"}\` or \`{"categoryId": 2}\`; \`null\`, \`id\` or any other property is a 400 naming it,
  and \`{}\` changes nothing (it answers the animal and its \`ETag\`).
- Safe against a concurrent change: send the animal's \`ETag\` (from \`GET /pets/{petId}\`, or the answer of the last
  change) as \`If-Match\`. If the animal changed since, the answer is a 412 \`precondition_failed\` and nothing
  changes: read it again, decide again. Without \`If-Match\` the last write wins.
- Every answer after a 200 or 204 sees the change: lists (and their \`ETag\`: a stale \`If-None-Match\` gets the new
  page), gets, the inventory, on every instance. A read-only key gets 403 \`insufficient_scope\`.
- While an animal has a \`placed\` order, its status moves only through that order: 409 \`pet_has_open_order\`. An
  animal an order names is never deleted (409 \`pet_has_orders\`): the order history keeps it.

## Selling an animal: orders (experimental)
A sale is two steps, each one transaction with the animal it moves (also new in version 1.2, experimental):
1. \`POST /store/orders\` with \`{"petId": 1}\` places an order: 201 with the order and its \`Location\`, and the
   animal becomes \`pending\`. An unknown animal is a 404; one that is not \`available\` is a 409
   \`pet_not_available\`. Of many concurrent orders for one animal exactly one is placed, on every instance.
   \`Idempotency-Key\` makes it safe to retry, as for a create.
2. \`PATCH /store/orders/{orderId}\` with \`{"status": "delivered"}\` completes the sale (the animal is \`sold\`), or
   with \`{"status": "cancelled"}\` releases it (\`available\` again). Both are final: any other move is a 409
   \`invalid_transition\`; asking again for the status the order has changes nothing (200). \`If-Match\` works as
   for animals.

An order is \`{"id", "petId", "status", "placedAt", "updatedAt"}\` (times in RFC 3339, UTC). It belongs to the key
that placed it and to the keys rolled from it: any other key gets 404 for it and never sees it in
\`GET /store/orders\`, which pages as \`GET /pets\` does and filters by \`status\` and \`petId\`.

## Listing and paging
\`GET /pets\` answers a plain JSON array in ascending id order. \`limit\` is 1 to ${MAX_LIMIT} (default
${DEFAULT_LIMIT}), \`status\` filters, \`after\` is the last id already seen. When more animals follow, the
answer carries \`Link: <.../v1/pets?limit=20&after=20>; rel="next"\` (RFC 8288), keeping \`limit\` and
\`status\`: follow it until there is none. Paging is by key, so page 10,000 costs what page 1 costs.
Integers in the query and the path are plain decimal digits (\`1.5\`, \`0x10\`, \`+5\` are 400). An
unknown query parameter is a 400 naming it, on every operation (those that take none included), so
\`?staus=sold\` never returns an unfiltered list; a
repeated one counts with its last value. A page of 1 KiB or more comes compressed (brotli or gzip) when
\`Accept-Encoding\` asks for it, with \`Vary: Accept-Encoding\` and an \`ETag\` of its own. Pages on other
origins can call the API when the service's \`CORS_ORIGINS\` names them.

## Retrying a create
Send an \`Idempotency-Key\` header (1 to 255 printable ASCII characters, e.g. a UUID) with \`POST /pets\` or
\`POST /store/orders\`.
For ${idempotencyHours} hours, a retry with the same key and the same body answers the first 201 again
(same animal or order, same \`Location\`, and \`Idempotent-Replayed: true\`) and creates nothing; the same
key with another body is 422 \`idempotency_key_reused\`, a body of the other operation included (one key, one
create). "The same body" means the same values: key order and white space do not matter. Keys belong to the
API key that sent them. A request refused before the create (400, 404, 409, 413, 415, 429) does not use its
key up, and concurrent requests with one key create one animal or order.

## Errors
Every error is an \`Error\` object, \`{"code": "...", "message": "...", "status": N}\`, whose \`status\`
equals the HTTP status and whose message names the offending field, parameter or header. No stack
trace is ever sent. Since version 1.2 it may also carry \`param\`, the body property, query or path
parameter or header at fault (\`"name"\`, \`"limit"\`, \`"If-Match"\`), and a validation failure carries
\`errors\`, one \`{"param", "message"}\` for every field at fault, so a form can mark them all at once:
\`{"code": "invalid_request", "message": "\\"name\\" is required", "status": 400, "param": "name",
"errors": [{"param": "name", ...}, {"param": "categoryId", ...}]}\`. Clients that ignore them see the
same Error as before.

| status | code | when |
|---|---|---|
${errorTable}

## Rate limits
Each key has two fixed windows: the clock minute and the UTC day (per minute/per day: ${describePlans()}).
Every response under \`/v1\` describes the window with fewer requests left (the minute on a tie):
- \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Used\` and \`X-RateLimit-Reset\` (Unix
  seconds), and \`X-RateLimit-Resource\`: \`minute\` or \`day\`, the window they describe.
- The IETF fields (draft-ietf-httpapi-ratelimit-headers): \`RateLimit-Policy\` lists both windows
  (\`"minute";q=60;w=60, "day";q=1000;w=86400\` for Free) and \`RateLimit\` describes the same window as the
  X- headers (\`"minute";r=48;t=34\`: 48 left, 34 seconds until it ends).

Every request with a valid key counts, whatever its answer, except a 429, the quota check, a 304 and our
own 500 or 503 (each 4xx counts). Requests without a valid key are counted per client address at the Free
limits, so guessing keys is throttled too; an IPv6 caller is counted per /${DEFAULT_IPV6_PREFIX} network by default.
- \`GET /rate_limit\` shows both windows and any ban without counting: call it whenever you need to,
  also while over the limit or banned, to see when to come back.
- What costs no quota is still bounded: a key's line may send ten times its plan's minute and day (at least
  600 a minute) of quota checks and conditional GETs; past that they get 429 \`rate_limit_exceeded\` with
  \`Retry-After\`, while the \`X-RateLimit-*\` headers keep describing the plan's quota, which is untouched.
- Revalidate instead of downloading again: \`GET /pets\` and \`GET /pets/{petId}\` carry a strong \`ETag\`;
  send it back in \`If-None-Match\` and, while the page or animal is unchanged, the answer is a 304 with no
  body, which costs no quota. A create changes a page's tag exactly when it changes the page.
- Over a limit: 429 \`rate_limit_exceeded\`, \`X-RateLimit-Remaining: 0\` and \`Retry-After\` in whole
  seconds until the blocking window ends (never earlier than \`t\`).
- More refusals within one minute than the minute's limit ban the key (or address)
  for ${BAN_DURATION_TEXT}: every request then gets 429 \`key_banned\` until the ban ends. Back off
  exponentially instead of retrying at once.

## Deprecation
\`GET /pets/{petId}\` is deprecated (\`Deprecation: ${GET_PET_DEPRECATED}\`, RFC 9745) and goes away at
its \`Sunset\` (${GET_PET_SUNSET}, RFC 8594). Every answer of that path, a 401 or a 429 included, carries
both and \`Link: <.../v1/pets>; rel="successor-version", <.../docs#/pets/getPet>; rel="deprecation"\`.
To read one animal, list instead: \`GET /pets?after=<id − 1>&limit=1\` answers a one-animal page; check that
its \`id\` is the one wanted (if not, no animal has that id).`
