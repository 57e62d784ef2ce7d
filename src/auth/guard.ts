import { Elysia } from 'elysia'
import { errorBody } from '../errors'
import { authenticate, refusalReason } from '../keys/authenticate'
import type { KeyStore } from '../keys/store'

/** The RFC 6750 challenge sent with every 401. */
export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"'

/** Whether a path belongs to the versioned API, which needs a key. */
export function isApiPath(path: string): boolean {
  return path.startsWith('/v1') && (path.length === 3 || path.charCodeAt(3) === 47 /* "/" */)
}

/**
 * The single `onRequest` step in front of `/v1`: it runs before routing,
 * parsing and validation, so an unknown path, a bad body or a wrong method
 * without a valid key is a 401 like any other.
 */
export function apiGuard({ keys }: { keys: KeyStore }) {
  return new Elysia({ name: 'api-guard' }).onRequest((context) => {
    const { request, set } = context
    // Elysia puts the raw path on every context (see its createContext); only its type omits it here.
    if (!isApiPath((context as typeof context & { path: string }).path)) return
    const authorization = request.headers.get('authorization')
    const key = authenticate(authorization, keys)
    // Rate limiting belongs here, between identifying the caller and refusing
    // it: it counts by key, or by client address when `key` is undefined.
    if (key === undefined) {
      set.status = 401
      set.headers['www-authenticate'] = WWW_AUTHENTICATE
      return errorBody(401, 'unauthorized', refusalReason(authorization))
    }
  })
}
