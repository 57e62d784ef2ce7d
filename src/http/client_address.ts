// An IPv6 address with a zone fits easily; anything longer is not an address.
const MAX_ADDRESS_LENGTH = 64

/**
 * The address a request is counted under when it has no valid key: the
 * socket's peer, or with `trustProxy` the first `X-Forwarded-For` hop. Only
 * trust it behind a proxy that sets that header itself, or a client could
 * name any address it likes.
 */
export function clientAddress(request: Request, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')
    if (forwarded !== null) {
      const comma = forwarded.indexOf(',')
      const first = (comma === -1 ? forwarded : forwarded.slice(0, comma)).trim()
      if (first !== '') return first.slice(0, MAX_ADDRESS_LENGTH)
    }
  }
  return socketAddress ?? 'unknown'
}
