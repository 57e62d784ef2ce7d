import { isWellFormedApiKey } from '../key_shape'
import { bearerToken, hashApiKey } from '../keys/api_key'

/** How many `Authorization` values are remembered; past this the memory starts afresh. */
export const KNOWN_CREDENTIALS_KEPT = 4096
/**
 * How many characters of `Authorization` values are remembered at most, all
 * together; past this the memory starts afresh too. A key's header is about 56
 * characters, so 4,096 of them fit with room to spare, while values padded
 * toward the header limit cannot hold megabytes.
 */
export const KNOWN_CREDENTIALS_CHARACTERS = 512 * 1024

/**
 * The key hash each `Authorization` value carries, remembered for the values
 * that named an active key: parsing the header and hashing its key then
 * happen once per client, not once per request (bench/README.md, "The key
 * check"). Whether the hash still names an active key is asked of the key
 * store every time, so a revoked, expired or changed key is seen as soon as
 * before. Only values that authenticated are kept, so a caller without a key
 * cannot fill it; it holds those keys in the clear, which this process reads
 * anyway with every request that carries one.
 */
export class KnownCredentials {
  #hashes = new Map<string, string>()
  #characters = 0

  /** The hash to look the key up by, or undefined when the header carries no well-formed key. */
  hashOf(authorization: string | null): string | undefined {
    if (authorization === null) return undefined
    const known = this.#hashes.get(authorization)
    if (known !== undefined) return known
    const token = bearerToken(authorization)
    if (token === undefined || !isWellFormedApiKey(token)) return undefined
    return hashApiKey(token)
  }

  /** Notes that `authorization` named an active key with this hash. */
  remember(authorization: string, hash: string): void {
    if (this.#hashes.has(authorization)) return
    if (
      this.#hashes.size >= KNOWN_CREDENTIALS_KEPT ||
      this.#characters + authorization.length > KNOWN_CREDENTIALS_CHARACTERS
    ) {
      this.#hashes.clear()
      this.#characters = 0
    }
    this.#hashes.set(authorization, hash)
    this.#characters += authorization.length
  }

  /** How many values, and how many of their characters, are remembered now. */
  get size(): { values: number; characters: number } {
    return { values: this.#hashes.size, characters: this.#characters }
  }
}
