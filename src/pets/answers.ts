import { entityTag, ifNoneMatchMatches, notModified } from '../http/conditional'
import type { ErrorBody, ResponseSet } from '../http/errors'
import { JSON_CONTENT_TYPE } from '../http/media_types'
import type { SettleQuota } from '../ratelimit/settle'
import type { Pet } from './schema'

/** A pet's strong ETag: the tag of its JSON as `getPet` sends it, which `If-Match` must name. */
export function petTag(pet: Pet): string {
  return entityTag(JSON.stringify(pet))
}

/**
 * A small JSON body with its strong ETag (one pet, the inventory; never
 * compressed: the largest pet is under 900 bytes): a 304 when
 * `If-None-Match` matches, costing no quota; otherwise the conditional GET
 * the guard let through is counted (a 429 if it is over), then the body.
 */
export async function sendTagged(
  json: string,
  request: Request,
  set: ResponseSet,
  settleQuota: SettleQuota,
): Promise<string | ErrorBody | undefined> {
  const etag = entityTag(json)
  set.headers.etag = etag
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), etag)) return notModified(set)
  const refusal = await settleQuota(request, set, 200)
  if (refusal !== undefined) return refusal
  set.headers['content-type'] = JSON_CONTENT_TYPE
  return json
}
