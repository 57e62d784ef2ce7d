import { isIP } from 'node:net'

/** A client address in one canonical form: IPv4 as a 32-bit number, IPv6 as its eight 16-bit groups. */
export type ClientAddress = { version: 4; value: number } | { version: 6; groups: number[] }

// An IPv6 address with a zone, brackets and a port fits easily; anything longer is not an address.
const MAX_ADDRESS_LENGTH = 80

/**
 * The address a request is counted under when it has no valid key: with
 * `trustProxy` the first `X-Forwarded-For` hop when it is an address, else
 * the socket's peer; undefined when neither is one. Only trust the header
 * behind a proxy that sets it itself, or a client could name any address.
 */
export function clientAddress(
  request: Request,
  socketAddress: string | undefined,
  trustProxy: boolean,
): ClientAddress | undefined {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')
    if (forwarded !== null) {
      const comma = forwarded.indexOf(',')
      const hop = parseAddress(comma === -1 ? forwarded : forwarded.slice(0, comma))
      if (hop !== undefined) return hop
    }
  }
  return socketAddress === undefined ? undefined : parseAddress(socketAddress)
}

/**
 * Parses one address however a proxy or a socket spells it: surrounding
 * quotes and blanks, `[...]` brackets, a `:port` after an IPv4 address or a
 * bracketed IPv6 one, a `%zone`, letter case and zero compression do not
 * matter; IPv4-mapped IPv6 (`::ffff:a.b.c.d`, in any spelling) is the IPv4
 * address. Undefined when the text is not an address.
 */
export function parseAddress(text: string): ClientAddress | undefined {
  let address = text.trim()
  if (address.length > MAX_ADDRESS_LENGTH) return undefined
  if (address.length >= 2 && address.startsWith('"') && address.endsWith('"')) address = address.slice(1, -1).trim()
  if (address.startsWith('[')) {
    const close = address.indexOf(']')
    if (close === -1) return undefined
    const rest = address.slice(close + 1)
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined
    address = address.slice(1, close)
  } else if (/^[\d.]+:\d{1,5}$/.test(address)) {
    address = address.slice(0, address.indexOf(':'))
  }
  const zone = address.indexOf('%')
  if (zone !== -1) address = address.slice(0, zone)
  switch (isIP(address)) {
    case 4:
      return { version: 4, value: ipv4Value(address) }
    case 6: {
      const groups = ipv6Groups(address)
      const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff
      if (mapped) return { version: 4, value: groups[6]! * 0x10000 + groups[7]! }
      return { version: 6, groups }
    }
    default:
      return undefined
  }
}

/** `a.b.c.d` (already checked by isIP) as one number. */
function ipv4Value(address: string): number {
  let value = 0
  for (const octet of address.split('.')) value = value * 256 + Number(octet)
  return value
}

/** An address isIP accepted as IPv6, as eight groups: `::` expanded, a dotted IPv4 tail as two groups. */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return []
    const groups: number[] = []
    for (const field of part.split(':')) {
      if (field.includes('.')) {
        const value = ipv4Value(field)
        groups.push(Math.floor(value / 0x10000), value % 0x10000)
      } else groups.push(Number.parseInt(field, 16))
    }
    return groups
  }
  const gap = address.indexOf('::')
  if (gap === -1) return parse(address)
  const head = parse(address.slice(0, gap))
  const tail = parse(address.slice(gap + 2))
  return [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail]
}

/** An address as people write it: IPv4 dotted, IPv6 in RFC 5952's form (lower case, the longest run of zero groups as `::`). */
export function addressText(address: ClientAddress): string {
  if (address.version === 4) {
    const { value } = address
    return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.')
  }
  const { groups } = address
  let start = -1
  let length = 0
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let end = i
    while (end < 8 && groups[end] === 0) end++
    if (end - i > length && end - i > 1) [start, length] = [i, end - i]
    i = end
  }
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(':')
  if (start === -1) return hex(groups)
  return `${hex(groups.slice(0, start))}::${hex(groups.slice(start + length))}`
}
