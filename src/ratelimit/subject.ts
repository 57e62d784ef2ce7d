import type { ClientAddress } from '../http/client_address'
import type { Limits } from '../keys/plans'
import type { ApiKey } from '../keys/store'
import type { Subject } from './limiter'
import { packable } from './packed_counters'

/** How IPv6 callers are grouped by default: one /64, the smallest network a host is usually given. */
export const DEFAULT_IPV6_PREFIX = 64

/**
 * The limiter subject of an API key: the id of the key its quota belongs to
 * (its own, or for a rolled key the first of its line), a positive number.
 */
export function keySubject(key: Pick<ApiKey, 'quotaId'>): Subject {
  return key.quotaId
}

/**
 * The name of a key's latest quota reset (`keys unban`): the same in the CLI
 * and in every instance, so a shared limiter applies it once.
 */
export function quotaResetName(key: Pick<ApiKey, 'id' | 'quotaResetAt'>): string {
  return `${key.id}@${key.quotaResetAt}`
}

/** Whether a subject is an API key's (the rest are callers without a key). */
export function isKeySubject(subject: Subject): boolean {
  return typeof subject === 'number' && subject > 0
}

/**
 * Whether a subject is held with the callers without a key: an address, on
 * limits that pack. Both limiters bound these (RecentSubjects in memory, the
 * anonymous hashes in Redis).
 */
export function isAnonymousSubject(subject: Subject, limits: Limits): boolean {
  return !isKeySubject(subject) && packable(limits)
}

/** The subject of a request with neither a key nor an address (no socket, as in some tests). */
const NO_ADDRESS: Subject = 'ip:unknown'
const IPV4_SPAN = 2 ** 32

/**
 * The limiter subject of a client address, always a negative number, so a
 * flood of distinct callers costs no string per entry: IPv4 `a` is
 * `-(a + 1)`; an IPv6 address is counted per network of its first
 * `ipv6Prefix` bits, hashed (52 bits) and placed below every IPv4 subject.
 * Two networks that hash alike (odds about n²/2^53 among n networks) share
 * one bucket, which makes them stricter, never looser.
 */
export function addressSubject(address: ClientAddress | undefined, ipv6Prefix = DEFAULT_IPV6_PREFIX): Subject {
  if (address === undefined) return NO_ADDRESS
  if (address.version === 4) return -address.value - 1
  return -IPV4_SPAN - 1 - networkHash(address.groups, ipv6Prefix)
}

/** A 52-bit hash (wyhash, seed 0: the same in every process) of the first `bits` bits of an IPv6 address. */
function networkHash(groups: number[], bits: number): number {
  const network = new Uint16Array(8)
  for (let i = 0; i < 8; i++) {
    const kept = Math.max(0, Math.min(16, bits - i * 16))
    network[i] = kept === 0 ? 0 : groups[i]! & (0xffff << (16 - kept))
  }
  return Number(BigInt.asUintN(52, Bun.hash.wyhash(network)))
}
