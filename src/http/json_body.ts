import { HttpError } from './errors'
import { MAX_BODY_BYTES } from './limits'
import { duplicateKey, repeatsAKey } from './repeated_keys'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Elysia `parse` hook for routes that take a JSON object: refuses bodies over
 * MAX_BODY_BYTES (413), one that stopped before its end (408), of another media type (415), and empty, malformed,
 * non-UTF-8 or non-object bodies, a key that shadows Object.prototype
 * ("__proto__", "toString", ...) or a string with a lone surrogate or a
 * U+0000 anywhere (400). Numbers that JSON would round come back as an
 * InexactNumber, which every schema refuses, instead of a neighbour.
 */
export function parseJsonBody({ request }: { request: Request }): Promise<Record<string, unknown>> {
  return parseJsonObject(request, JSON_ONLY)
}

/**
 * The same, for a JSON Merge Patch (RFC 7396): `application/merge-patch+json`,
 * or `application/json` as clients that know no other type send it.
 */
export function parseMergePatchBody({ request }: { request: Request }): Promise<Record<string, unknown>> {
  return parseJsonObject(request, MERGE_PATCH_OR_JSON)
}

/** The media types a body may have, and the 415's message when it has another. */
interface AcceptedBodies {
  types: readonly string[]
  refusal: string
}

/** What `parseJsonBody` accepts; its `refusal` is the 415's message, which the document shows. */
export const JSON_ONLY: AcceptedBodies = {
  types: ['application/json'],
  refusal: 'Content-Type must be application/json',
}
/** What `parseMergePatchBody` accepts. */
export const MERGE_PATCH_OR_JSON: AcceptedBodies = {
  types: ['application/merge-patch+json', 'application/json'],
  refusal: 'Content-Type must be application/merge-patch+json or application/json',
}

async function parseJsonObject(request: Request, accepted: AcceptedBodies): Promise<Record<string, unknown>> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge()
  let bytes: Uint8Array
  try {
    // A declared length is at most the limit (Bun holds the body to it): read at once. A chunked body declares
    // none: read it piece by piece and stop at the limit, so a flood of large chunked uploads holds no memory.
    bytes = declared !== null ? await request.bytes() : await readUpTo(request, MAX_BODY_BYTES)
  } catch (error) {
    if (error instanceof HttpError) throw error
    // The body stopped before its end: the client stalled until the idle timeout closed the connection,
    // or it went away. Nobody reads the answer; the log says what happened.
    throw new HttpError('request_timeout', 'The request body stopped before its end; the connection was closed')
  }
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge()
  if (bytes.byteLength === 0) throw new HttpError('invalid_request', 'Request body is required: a JSON object')
  if (!accepted.types.includes(mediaTypeOf(request.headers.get('content-type')))) {
    throw new HttpError('unsupported_media_type', accepted.refusal, { param: 'Content-Type' })
  }
  const coding = request.headers.get('content-encoding')
  if (coding !== null && coding.trim().toLowerCase() !== 'identity')
    throw new HttpError(
      'unsupported_media_type',
      'Content-Encoding is not accepted on a request body: send the JSON uncompressed (it is 16 KiB at most)',
      { param: 'Content-Encoding' },
    )
  let value: unknown
  let text: string
  try {
    text = utf8.decode(bytes)
    value = parseChecked(text)
  } catch (error) {
    if (error instanceof HttpError) throw error
    throw new HttpError('invalid_request', 'Request body is not valid JSON')
  }
  // JSON.parse keeps the last of two equal keys: the body meant something the service would not see.
  const twice = repeatsAKey(text, value) ? duplicateKey(text) : undefined
  if (twice !== undefined)
    throw new HttpError('invalid_request', `"${twice}" appears twice in one object; send each property once`, {
      param: twice,
    })
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError('invalid_request', 'Request body must be a JSON object')
  }
  return value as Record<string, unknown>
}

/**
 * A digit followed by `.`, `e` or `E`, or sixteen digits in a row: where a
 * JSON number a double may not hold exactly can be. Without one, every
 * number literal in the text is an integer of at most fifteen digits, which
 * a double holds exactly (2^53 has sixteen).
 */
const MAYBE_INEXACT_NUMBER = /\d[.eE]|\d{16}/

/**
 * JSON.parse with `keepNumbersExact`'s checks on every property. A reviver
 * that reads each number's source costs a small body about four times a
 * plain parse (1.1 against 0.26 µs for a create's body in a loop;
 * bench/README.md, "A body parsed without a reviver"), so it runs only when the
 * text may hold a number a double rounds (MAYBE_INEXACT_NUMBER); otherwise
 * the plain parse is walked with the same checks in the reviver's order
 * (each property after what it holds, in key order), so the same body
 * meets the same first refusal either way.
 */
export function parseChecked(text: string): unknown {
  if (MAYBE_INEXACT_NUMBER.test(text)) return JSON.parse(text, keepNumbersExact)
  const value: unknown = JSON.parse(text)
  checkParsed('', value)
  return value
}

/** `checkProperty` on `value` and on everything it holds, as JSON.parse would call a reviver: depth first, each after its children. */
function checkParsed(key: string, value: unknown): void {
  if (typeof value === 'object' && value !== null)
    for (const inner of Object.keys(value)) checkParsed(inner, (value as Record<string, unknown>)[inner])
  checkProperty(key, value)
}

/** A body read piece by piece, refused (413) as soon as it passes `limit` bytes: the rest is never read. */
async function readUpTo(request: Request, limit: number): Promise<Uint8Array> {
  const body = request.body
  if (body === null) return new Uint8Array(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

function tooLarge(): HttpError {
  return new HttpError('payload_too_large', `Request body must not exceed ${MAX_BODY_BYTES} bytes`)
}

/** `application/json`, in any case, with or without parameters such as a charset. */
export function isJsonMediaType(contentType: string | null): boolean {
  return mediaTypeOf(contentType) === 'application/json'
}

/** A Content-Type's media type, lower case, without its parameters (a charset); '' without one. */
function mediaTypeOf(contentType: string | null): string {
  if (contentType === null) return ''
  const end = contentType.indexOf(';')
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase()
}

/** The reviver of a body that may hold a number a double rounds: `checkProperty`, and such a number made an InexactNumber. */
function keepNumbersExact(key: string, value: unknown, context?: { source?: string }): unknown {
  checkProperty(key, value)
  if (typeof value === 'number' && context?.source !== undefined && !isExactLiteral(context.source, value)) {
    return new InexactNumber(context.source)
  }
  return value
}

/** What every property of a body must be, whatever its numbers: a 400 (HttpError) for the first that is not. */
function checkProperty(key: string, value: unknown): void {
  // A key that shadows Object.prototype ("__proto__", "toString", "valueOf", ...) breaks code that
  // copies the object or turns it into text; none is a property of anything this API accepts.
  if (key in Object.prototype)
    throw new HttpError('invalid_request', `"${key}" is not an accepted property`, { param: key })
  if (typeof value === 'string') {
    // SQLite stores UTF-8, where a lone surrogate (a "\ud800" escape) would silently become U+FFFD.
    if (!value.isWellFormed())
      throw new HttpError('invalid_request', `"${key}" must be well-formed Unicode: it contains a lone surrogate`, {
        param: key,
      })
    // PostgreSQL's text cannot hold U+0000; refused on every store so the API does not depend on the store.
    if (value.includes('\u0000'))
      throw new HttpError('invalid_request', `"${key}" must not contain U+0000 (NUL)`, { param: key })
  }
}

/**
 * Stands in for a JSON number that a double cannot hold exactly. It is
 * neither a number nor a string, so every schema refuses it: an integer
 * field does not get a rounded neighbour, and a string field does not get the
 * digits as text.
 */
class InexactNumber {
  constructor(readonly source: string) {}
}

const INTEGER_LITERAL = /^-?\d+$/
const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/**
 * Whether the JSON number literal `source` denotes exactly `value`, as far as
 * integers go: `9007199254740993` (read as ...992) or `1.0000000000000001`
 * (read as 1) are not exact; `1.0` and `1e3` are.
 */
export function isExactLiteral(source: string, value: number): boolean {
  if (!Number.isInteger(value)) return true
  if (INTEGER_LITERAL.test(source)) {
    return Number.isSafeInteger(value) && source.length < 17 ? true : BigInt(source) === BigInt(value)
  }
  const parts = NUMBER_LITERAL.exec(source)
  if (!parts) return false
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = parts
  let digits = (whole + fraction).replace(/^0+/, '')
  if (digits === '') return value === 0
  let power = Number(exponent) - fraction.length
  while (power < 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1)
    power++
  }
  if (power < 0) return false
  return BigInt(sign + digits) * 10n ** BigInt(power) === BigInt(value)
}
