import { Elysia } from 'elysia'
import { integerFromText } from '../http/integer_text'
import { parseMergePatchBody } from '../http/json_body'
import { NoQuery } from '../http/no_query'
import { API_PREFIX } from '../http/url'
import type { SettleQuota } from '../ratelimit/settle'
import {
  ifMatchPrecondition,
  invalidTransition,
  petChanged,
  petHasOpenOrder,
  petHasOrders,
  petNotFound,
  petTag,
  sendChanged,
  sendTagged,
} from './answers'
import { DELETE_PET, GET_INVENTORY, UPDATE_PET } from './operations'
import { PetChangeHeaders, PetIdParams, PetPatch } from './schema'
import type { PetStore } from './store'

/** What the routes that change pets need. */
export interface PetChangeRoutesOptions {
  pets: PetStore
  /** Counts a conditional GET of the inventory the guard let through, unless its answer is a 304. */
  settleQuota: SettleQuota
}

/**
 * The experimental operations of version 1.2 on pets (decisions.md, "Pets
 * that change"): `PATCH` and `DELETE /v1/pets/{petId}`, each made only when
 * `If-Match` (if sent) names the pet's ETag as it is now, and
 * `GET /v1/store/inventory`. A read-only key never reaches them: the guard
 * refuses every write with 403.
 */
export function petChangeRoutes({ pets, settleQuota }: PetChangeRoutesOptions) {
  return new Elysia({ name: 'pet-changes', prefix: API_PREFIX })
    .patch(
      '/pets/:petId',
      async ({ params, body, headers, set }) => {
        const id = params.petId
        const outcome = await pets.update(id, body, ifMatchPrecondition(headers['if-match'], petTag))
        switch (outcome.kind) {
          case 'not_found':
            throw petNotFound(id)
          case 'precondition_failed':
            throw petChanged(id)
          case 'invalid_transition':
            throw invalidTransition(outcome.from, outcome.to)
          case 'has_open_order':
            throw petHasOpenOrder(id)
        }
        return sendChanged(JSON.stringify(outcome.pet), set)
      },
      {
        parse: parseMergePatchBody,
        body: PetPatch,
        params: PetIdParams,
        query: NoQuery,
        headers: PetChangeHeaders,
        detail: UPDATE_PET,
        transform({ params }) {
          params.petId = integerFromText(params.petId) as number
        },
      },
    )
    .delete(
      '/pets/:petId',
      async ({ params, headers, set }) => {
        const id = params.petId
        const outcome = await pets.delete(id, ifMatchPrecondition(headers['if-match'], petTag))
        if (outcome.kind === 'not_found') throw petNotFound(id)
        if (outcome.kind === 'precondition_failed') throw petChanged(id)
        if (outcome.kind === 'has_orders') throw petHasOrders(id)
        set.status = 204
        return undefined
      },
      {
        params: PetIdParams,
        query: NoQuery,
        headers: PetChangeHeaders,
        detail: DELETE_PET,
        transform({ params }) {
          params.petId = integerFromText(params.petId) as number
        },
      },
    )
    .get(
      '/store/inventory',
      async ({ request, set }) => sendTagged(JSON.stringify(await pets.inventory()), request, set, settleQuota),
      { query: NoQuery, detail: GET_INVENTORY },
    )
}
