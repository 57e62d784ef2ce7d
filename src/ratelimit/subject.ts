import type { Subject } from './limiter'

const IPV4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i

/** The limiter subject of an API key: its id, a positive number. */
export function keySubject(id: number): Subject {
  return id
}

/**
 * The limiter subject of a client address. An IPv4 address (also written
 * IPv4-mapped, `::ffff:a.b.c.d`) becomes a negative number, so a flood of
 * distinct addresses costs no string per entry; anything else stays text.
 */
export function addressSubject(address: string): Subject {
  const parts = IPV4.exec(address)
  if (parts) {
    let value = 0
    for (let i = 1; i <= 4; i++) {
      const octet = Number(parts[i])
      if (octet > 255) return `ip:${address}`
      value = value * 256 + octet
    }
    return -value - 1
  }
  return `ip:${address}`
}
