import { promisify } from 'node:util'
import { brotliCompress, brotliCompressSync, constants, gzip } from 'node:zlib'
import { entityTag, ifNoneMatchMatches } from './conditional'

/**
 * Content codings (RFC 9110 §8.4.1) the service compresses with, from
 * Bun's built-in zlib: brotli (smaller) first, then gzip (everywhere).
 */
export type ContentCoding = 'br' | 'gzip'

/** Bodies smaller than this are sent as they are: compressing them saves too little to be worth a client's CPU. */
export const COMPRESS_MIN_BYTES = 1024

/** `Vary` for a resource whose body depends on `Accept-Encoding`. */
export const VARY_ACCEPT_ENCODING = 'Accept-Encoding'

/**
 * How hard to compress: `fast` for API bodies (brotli quality 5 and gzip
 * level 6, cheap enough for a page compressed once and kept:
 * bench/README.md, "The costs behind the code's choices"), `best` for static assets compressed
 * once per process in the background (brotli 11, gzip 9).
 */
export type CompressionEffort = 'fast' | 'best'

const BROTLI_QUALITY = { fast: 5, best: 11 } as const
const GZIP_LEVEL = { fast: 6, best: 9 } as const

/** Compresses `body` now, on this thread: for bodies of a few KiB. */
export function compressSync(
  body: Uint8Array<ArrayBuffer>,
  coding: ContentCoding,
  effort: CompressionEffort,
): Uint8Array<ArrayBuffer> {
  if (coding === 'gzip') return Bun.gzipSync(body, { level: GZIP_LEVEL[effort] })
  return brotliCompressSync(body, brotliOptions(body, effort))
}

const brotliAsync = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/**
 * Compresses `body` on zlib's worker threads, so the event loop keeps
 * serving: for large assets, such as the Swagger UI bundle at brotli 11
 * (bench/README.md, "What a browser downloads for /docs").
 */
export async function compressInBackground(
  body: Uint8Array,
  coding: ContentCoding,
  effort: CompressionEffort,
): Promise<Uint8Array<ArrayBuffer>> {
  const compressed =
    coding === 'gzip'
      ? await gzipAsync(body, { level: GZIP_LEVEL[effort] })
      : await brotliAsync(body, brotliOptions(body, effort))
  return new Uint8Array(compressed)
}

function brotliOptions(body: Uint8Array, effort: CompressionEffort) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY[effort],
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  }
}

// Clients send few distinct Accept-Encoding values (a browser always the same one): each is parsed once.
const choices = new Map<string, readonly ContentCoding[]>()
const CHOICES_MAX = 256
const NONE: readonly ContentCoding[] = []

/**
 * The codings a client accepts, by its `Accept-Encoding` field (RFC 9110
 * §12.5.3), most wanted first: brotli and gzip by weight (`x-gzip` is gzip,
 * `*` stands for any coding not named, `q=0` refuses), brotli first on a
 * tie; none without the field or for `identity` alone.
 */
export function acceptedCodings(acceptEncoding: string | null): readonly ContentCoding[] {
  if (acceptEncoding === null || acceptEncoding === '') return NONE
  let accepted = choices.get(acceptEncoding)
  if (accepted === undefined) {
    accepted = parseAcceptEncoding(acceptEncoding)
    if (choices.size >= CHOICES_MAX) choices.clear()
    choices.set(acceptEncoding, accepted)
  }
  return accepted
}

function parseAcceptEncoding(field: string): readonly ContentCoding[] {
  const weights = new Map<string, number>()
  for (const member of field.split(',')) {
    const [name = '', ...parameters] = member.split(';').map((part) => part.trim().toLowerCase())
    if (name === '') continue
    let weight = 1
    for (const parameter of parameters) {
      const match = /^q\s*=\s*([01](?:\.\d{0,3})?)$/.exec(parameter)
      if (match) weight = Math.min(1, Number(match[1]))
    }
    weights.set(name === 'x-gzip' ? 'gzip' : name, weight)
  }
  const any = weights.get('*') ?? 0
  const br = weights.get('br') ?? any
  const gzipWeight = weights.get('gzip') ?? any
  const accepted: ContentCoding[] = []
  if (br > 0) accepted.push('br')
  if (gzipWeight > 0) accepted.push('gzip')
  return gzipWeight > br ? accepted.reverse() : accepted
}

/** One form of a representation as sent: its body, its strong ETag, and its coding (none for the identity form). */
export interface EncodedForm {
  body: string | Uint8Array<ArrayBuffer>
  etag: string
  coding: ContentCoding | undefined
}

/**
 * A representation (RFC 9110 §3.2) and its compressed forms, each made once
 * and kept: a cached page or an asset is compressed once, however often it
 * is sent. Each form has its own strong ETag (the identity's, with `-br` or
 * `-gz` inside the quotes), as §8.8.3 asks of different codings. With the
 * `fast` effort a form is made on this thread when first asked for; with
 * `best` both are made on zlib's threads after the first ask, and until one
 * is ready the next best form is sent, so no request waits for brotli 11.
 */
export class Representation {
  readonly identity: EncodedForm
  /** Whether the body is large enough to be compressed: then its answers say `Vary: Accept-Encoding`. */
  readonly compressible: boolean
  #forms: Partial<Record<ContentCoding, EncodedForm>> = {}
  #effort: CompressionEffort
  #gzipReady: Promise<void> | undefined
  #all: Promise<void> | undefined

  constructor(body: string | Uint8Array<ArrayBuffer>, etag: string, effort: CompressionEffort = 'fast') {
    this.identity = { body, etag, coding: undefined }
    this.#effort = effort
    // A string's UTF-8 length is at least its length in UTF-16 units, and at most three times it.
    this.compressible =
      typeof body === 'string'
        ? body.length >= COMPRESS_MIN_BYTES || Buffer.byteLength(body) >= COMPRESS_MIN_BYTES
        : body.byteLength >= COMPRESS_MIN_BYTES
  }

  /** The form to send for an `Accept-Encoding` field: compressed when the body is large enough and the client asks. */
  formFor(acceptEncoding: string | null): EncodedForm {
    if (!this.compressible) return this.identity
    const accepted = acceptedCodings(acceptEncoding)
    if (accepted.length === 0) return this.identity
    if (this.#effort === 'best') {
      this.startCompressing()
      for (const coding of accepted) {
        const form = this.#forms[coding]
        if (form !== undefined) return form
      }
      return this.identity
    }
    const coding = accepted[0] as ContentCoding
    let form = this.#forms[coding]
    if (form === undefined) {
      form = this.#form(coding, compressSync(this.#bytes(), coding, this.#effort))
      this.#forms[coding] = form
    }
    return form
  }

  /**
   * Makes every form on zlib's threads, gzip first, and resolves once the
   * gzip form is ready (milliseconds), while brotli goes on; `compressAll`
   * resolves when both are. The first `formFor` starts it if nothing has.
   */
  startCompressing(): Promise<void> {
    this.#gzipReady ??= this.#compress('gzip')
    this.#all ??= this.#gzipReady.then(() => this.#compress('br'))
    return this.#gzipReady
  }

  /** Resolves once every form is made. */
  compressAll(): Promise<void> {
    this.startCompressing()
    return this.#all as Promise<void>
  }

  async #compress(coding: ContentCoding): Promise<void> {
    if (!this.compressible || this.#forms[coding] !== undefined) return
    this.#forms[coding] = this.#form(coding, await compressInBackground(this.#bytes(), coding, this.#effort))
  }

  #form(coding: ContentCoding, body: Uint8Array<ArrayBuffer>): EncodedForm {
    return { body, etag: `${this.identity.etag.slice(0, -1)}-${coding === 'br' ? 'br' : 'gz'}"`, coding }
  }

  #bytes(): Uint8Array<ArrayBuffer> {
    const body = this.identity.body
    return typeof body === 'string' ? new TextEncoder().encode(body) : body
  }
}

/**
 * A whole response for a representation: the form the client accepts, with
 * its ETag, `Vary: Accept-Encoding` when the body is compressible, and a
 * 304 when `If-None-Match` matches; `headers` add the type and caching.
 */
export function negotiatedResponse(
  request: Request,
  representation: Representation,
  headers: Record<string, string>,
): Response {
  const form = representation.formFor(request.headers.get('accept-encoding'))
  const sent = new Headers(headers)
  sent.set('etag', form.etag)
  if (representation.compressible) sent.set('vary', VARY_ACCEPT_ENCODING)
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), form.etag))
    return new Response(null, { status: 304, headers: sent })
  if (form.coding !== undefined) sent.set('content-encoding', form.coding)
  return new Response(form.body, { headers: sent })
}

/**
 * A whole response for a body sent as it is (not kept, not compressed): its
 * ETag, and a 304 when `If-None-Match` matches; `headers` add the type and
 * caching.
 */
export function identityResponse(request: Request, body: string, headers: Record<string, string>): Response {
  const sent = new Headers(headers)
  const etag = entityTag(body)
  sent.set('etag', etag)
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), etag))
    return new Response(null, { status: 304, headers: sent })
  return new Response(body, { headers: sent })
}
