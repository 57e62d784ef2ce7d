import { Elysia } from 'elysia'
import { baseUrl, isChildPath } from '../http/url'
import { PETS_PATH } from './paths'

/** When `GET /pets/{petId}` was deprecated (RFC 9745 date: the 1.0.0 release, 2026-11-21). */
export const GET_PET_DEPRECATED = '@1795219200'
/** When `GET /pets/{petId}` goes away (RFC 8594). */
export const GET_PET_SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT'
/** Where people read why and what to use instead: the operation in the Swagger UI. */
export const GET_PET_EXPLANATION = '/docs#/pets/getPet'

/**
 * Puts `Deprecation`, `Sunset` and `Link` (the successor and, per RFC 9745
 * §3, the explanation) on every answer of `GET /v1/pets/{petId}`. Registered
 * before the guard, so a 401 or a 429 of that path carries them too.
 */
export function getPetDeprecation({ publicUrl }: { publicUrl: string | undefined }) {
  return new Elysia({ name: 'get-pet-deprecation' }).onRequest(({ request, set }) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !isChildPath(request.url, PETS_PATH)) return
    const base = baseUrl(publicUrl, request.url)
    set.headers.deprecation = GET_PET_DEPRECATED
    set.headers.sunset = GET_PET_SUNSET
    set.headers.link =
      `<${base}${PETS_PATH}>; rel="successor-version", ` +
      `<${base}${GET_PET_EXPLANATION}>; rel="deprecation"; type="text/html"`
  })
}
