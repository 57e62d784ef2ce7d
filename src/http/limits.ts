/**
 * Every size limit on a request, in bytes. The service answers its own JSON
 * error below Bun's ceilings; above them Bun answers bare, before the app.
 */

/** The largest request body the app accepts (16 KiB); above it, 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 16 * 1024
/** The longest request target (path and query) the app accepts (8 KiB); above it, 414 `uri_too_long`. */
export const MAX_TARGET_BYTES = 8 * 1024
/** The most header bytes (names, values and separators) the app accepts (16 KiB); above it, 431 `headers_too_large`. */
export const MAX_HEADER_BYTES = 16 * 1024

/** The most header fields the app accepts (100, as Node.js's `maxHeadersCount`); above it, 431 `headers_too_large`. */
export const MAX_HEADER_FIELDS = 100

/**
 * Bun's own ceiling on header fields: a request with more gets a bare 431
 * before the app. Fixed in Bun 1.4.5 (its HTTP parser's table; no option
 * sets it), measured: 198 fields pass, 199 do not.
 */
export const BUN_MAX_HEADER_FIELDS = 198

/** Bun's own ceiling on a body (`maxRequestBodySize`, 1 MiB): above it Bun answers a bare 413. */
export const BUN_MAX_BODY_BYTES = 1024 * 1024
/**
 * Bun's own ceiling on a request head (64 KiB), above the app's limits so that
 * requests between them get the app's JSON 414 or 431; above it Bun answers a
 * bare 431. Set by BUN_HEAD_SIZE_FLAG, which `npm start`, the compiled
 * binary, the tests and the bench pass to Bun.
 */
export const BUN_MAX_HEAD_BYTES = 64 * 1024
/** Bun's ceiling on a request head when started without BUN_HEAD_SIZE_FLAG. */
export const BUN_DEFAULT_HEAD_BYTES = 16 * 1024
/** The Bun option that sets BUN_MAX_HEAD_BYTES. */
export const BUN_HEAD_SIZE_FLAG = `--max-http-header-size=${BUN_MAX_HEAD_BYTES}`

/** `n` bytes as people write them: "16 KiB", "1 MiB". */
export function kib(n: number): string {
  return n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n / 1024} KiB`
}
