import { entityTag, ifMatchMatches, ifNoneMatchMatches, notModified, tagAnswer } from '../http/conditional'
import { type ErrorBody, HttpError, type ResponseSet } from '../http/errors'
import { JSON_CONTENT_TYPE } from '../http/media_types'
import type { SettleQuota } from '../ratelimit/settle'
import { movesFrom } from './changes'
import type { Pet, PetStatus } from './schema'

/** A pet's strong ETag: the tag of its JSON as `getPet` sends it, which `If-Match` must name. */
export function petTag(pet: Pet): string {
  return entityTag(JSON.stringify(pet))
}

/** The tag variant of a page whose next one follows (entityTag's seed). */
const NEXT_PAGE_FOLLOWS = 1

/**
 * A page's strong ETag: of its JSON, and of whether a next page follows
 * (the `Link` a 304 stands for), so the same rows tag apart once more
 * are added after them.
 */
export function pageTag(json: string, more: boolean): string {
  return entityTag(json, more ? NEXT_PAGE_FOLLOWS : 0)
}

/**
 * A small JSON body with its strong ETag (one pet, the inventory, an order
 * or a page of orders; never compressed): a 304 when `If-None-Match`
 * matches, costing no quota; otherwise the conditional GET the guard let
 * through is counted (a 429 if it is over), then the body. The tag is the
 * body's, unless the answer says more than its body (a page's: `pageTag`).
 */
export async function sendTagged(
  json: string,
  request: Request,
  set: ResponseSet,
  settleQuota: SettleQuota,
  etag: string = entityTag(json),
): Promise<string | ErrorBody | undefined> {
  tagAnswer(set, etag)
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), etag)) return notModified(set)
  const refusal = await settleQuota(request, set, 200)
  if (refusal !== undefined) return refusal
  set.headers['content-type'] = JSON_CONTENT_TYPE
  return json
}

/** The 404 of an operation on one pet: no pet has id `id`. */
export function petNotFound(id: number): HttpError {
  return new HttpError('not_found', `Pet ${id} does not exist`, { param: 'petId' })
}

/** The 412 of a change whose `If-Match` names the pet as it was, not as it is. */
export function petChanged(id: number): HttpError {
  return changedSince(`Pet ${id}`)
}

/** The 412 of a change whose `If-Match` names `what` ("Pet 7", "Order 3") as it was, not as it is. */
export function changedSince(what: string): HttpError {
  return new HttpError(
    'precondition_failed',
    `${what} has changed since the ETag in If-Match was read; nothing was changed: read it again and retry`,
    { param: 'If-Match' },
  )
}

/** The 409 of a change that would move a pet's status from `from` to `to`, which `canMove` forbids. */
export function invalidTransition(from: PetStatus, to: PetStatus): HttpError {
  return cannotMove(from, to, movesFrom(from))
}

/** The 409 of a status move from `from` to `to` (a pet's, an order's), when `from` allows only `moves`. */
export function cannotMove(from: string, to: string, moves: readonly string[]): HttpError {
  return new HttpError(
    'invalid_transition',
    `"status" cannot move from ${from} to ${to}: ` +
      (moves.length === 0 ? `${from} is final` : `from ${from} it moves to ${moves.join(' or ')}`),
    { param: 'status' },
  )
}

/** What a change's `If-Match` asks of the thing as it is now: that it has the ETag named; none without the field. */
export function ifMatchPrecondition<T>(
  ifMatch: string | undefined,
  tagOf: (current: T) => string,
): ((current: T) => boolean) | undefined {
  if (ifMatch === undefined) return undefined
  return (current) => ifMatchMatches(ifMatch, tagOf(current))
}

/** A pet or an order as a change answers it, with its new ETag, for the next `If-Match`. */
export function sendChanged(json: string, set: ResponseSet): string {
  tagAnswer(set, entityTag(json))
  set.headers['content-type'] = JSON_CONTENT_TYPE
  return json
}

/** The 409 of a change to the status of a pet that has a `placed` order: only that order moves it. */
export function petHasOpenOrder(id: number): HttpError {
  return new HttpError(
    'pet_has_open_order',
    `Pet ${id} has a placed order: its status moves only through that order (deliver or cancel it); nothing was changed`,
    { param: 'status' },
  )
}

/** The 409 of a delete of a pet an order names. */
export function petHasOrders(id: number): HttpError {
  return new HttpError('pet_has_orders', `Pet ${id} is named by an order, so it stays for the order history`, {
    param: 'petId',
  })
}

/** A create's 201: where the new animal or order is, and whether it replays an earlier request's (Idempotency-Key). */
export function answerCreated(set: ResponseSet, location: string, replayed: boolean): void {
  set.status = 201
  set.headers.location = location
  if (replayed) set.headers['idempotent-replayed'] = 'true'
}
