import { Elysia } from 'elysia'
import { type Awaitable, andThen } from '../awaitable'
import type { Callers } from '../http/callers'
import { type EncodedForm, Representation, VARY_ACCEPT_ENCODING } from '../http/compression'
import { ifNoneMatchMatches, notModified, tagAnswer } from '../http/conditional'
import type { ErrorBody, ResponseSet } from '../http/errors'
import { integerFromText } from '../http/integer_text'
import { parseJsonBody } from '../http/json_body'
import { JSON_CONTENT_TYPE } from '../http/media_types'
import { NoQuery } from '../http/no_query'
import { plainQueryHandler } from '../http/plain_hook'
import { ReusedHeaders } from '../http/reused_headers'
import { API_PREFIX, baseUrl } from '../http/url'
import type { SettleQuota } from '../ratelimit/settle'
import { answerCreated, pageTag, petNotFound, sendTagged } from './answers'
import { bodyHash } from './idempotency'
import { claimOf, idempotencyKeyReused } from './idempotency_header'
import { CREATE_PET, GET_PET, LIST_PETS } from './operations'
import { PETS_PATH } from './paths'
import { DEFAULT_LIMIT, IdempotencyKeyHeaders, ListPetsQuery, NewPet, PetIdParams } from './schema'
import type { PetListQuery, PetPage, PetStore } from './store'

/** What the pet routes need. */
export interface PetRoutesOptions {
  pets: PetStore
  /** Which key each request authenticated with (the guard has checked it): Idempotency-Keys are scoped to it. */
  callers: Callers
  /** Milliseconds since the epoch, for Idempotency-Key expiry. */
  clock: () => number
  /** Public base URL without `/v1`; when absent, derived from each request. */
  publicUrl?: string
  /** Counts a conditional GET the guard let through, unless its answer is a 304. */
  settleQuota: SettleQuota
  /**
   * Whether the page and the quota are always at hand at once (SQLite and
   * the in-memory limiter): the list route is then a plain function, so its
   * answer reaches Bun without a promise. Otherwise it is async and awaits
   * them, so that a failure reaches the error mapper (503, 500).
   */
  listsAtOnce: boolean
}

/** The three pet operations under `/v1`. */
export function petRoutes({ pets, publicUrl, callers, clock, settleQuota, listsAtOnce }: PetRoutesOptions) {
  const pageHeaders = new ReusedHeaders()
  const createdHeaders = new ReusedHeaders()
  /** A page's answer once its quota is settled: the `Link` to the next page, and the body. */
  const sendPage = (page: PetPage, wanted: PetListQuery, request: Request, set: ResponseSet, form: EncodedForm) => {
    const last = page.pets.at(-1)
    if (page.more && last) {
      set.headers.link = `<${nextPageUrl(baseUrl(publicUrl, request.url), wanted, last.id)}>; rel="next"`
    }
    return send(set, form, pageHeaders)
  }
  /** The answer for a page: a 304, a 429 from settling a conditional GET, or the page. */
  const answerPage = (page: PetPage, wanted: PetListQuery, request: Request, set: ResponseSet) => {
    const representation = pageRepresentation(page)
    const form = representation.formFor(request.headers.get('accept-encoding'))
    tagAnswer(set, form.etag)
    if (representation.compressible) set.headers.vary = VARY_ACCEPT_ENCODING
    if (ifNoneMatchMatches(request.headers.get('if-none-match'), form.etag)) return notModified(set)
    return andThen(settleQuota(request, set, 200), (refusal) => refusal ?? sendPage(page, wanted, request, set, form))
  }
  /** The list's answer, at once when the page and the quota are at hand, else a promise of it (PostgreSQL, Redis). */
  const answerList = (query: ListPetsQuery, request: Request, set: ResponseSet): Awaitable<ListAnswer> => {
    const wanted: PetListQuery = { limit: query.limit ?? DEFAULT_LIMIT, status: query.status, after: query.after }
    return andThen(pets.list(wanted, callers.storeVersionOf(request)), (page) => answerPage(page, wanted, request, set))
  }
  return new Elysia({ name: 'pets', prefix: API_PREFIX })
    .get(
      '/pets',
      // Plain when the page and the quota are at hand at once (http/plain_hook.ts); else awaited, so that a
      // failing store reaches the error mapper.
      plainQueryHandler(answerList, listsAtOnce),
      {
        query: ListPetsQuery,
        detail: LIST_PETS,
        transform({ query }) {
          if (query.limit !== undefined) query.limit = integerFromText(query.limit) as number
          if (query.after !== undefined) query.after = integerFromText(query.after) as number
        },
      },
    )
    .post(
      '/pets',
      async ({ body, headers, request, set }) => {
        const claim = claimOf(headers['idempotency-key'], callers.keyIdOf(request), () => bodyHash(body), clock())
        const outcome = await pets.create(body, claim)
        if (outcome.kind === 'conflict') throw idempotencyKeyReused()
        const location = `${baseUrl(publicUrl, request.url)}${PETS_PATH}/${outcome.pet.id}`
        answerCreated(set, location, outcome.kind === 'replayed')
        set.headers['content-type'] = JSON_CONTENT_TYPE
        return createdHeaders.respond(JSON.stringify(outcome.pet), set)
      },
      {
        parse: parseJsonBody,
        body: NewPet,
        headers: IdempotencyKeyHeaders,
        query: NoQuery,
        detail: CREATE_PET,
      },
    )
    .get(
      '/pets/:petId',
      async ({ params, request, set }) => {
        const pet = await pets.get(params.petId)
        if (!pet) throw petNotFound(params.petId)
        return sendTagged(JSON.stringify(pet), request, set, settleQuota)
      },
      {
        params: PetIdParams,
        query: NoQuery,
        detail: GET_PET,
        // The deprecation headers come from getPetDeprecation, which runs before the guard.
        transform({ params }) {
          params.petId = integerFromText(params.petId) as number
        },
      },
    )
}

// A page a cache hands out again and again is serialized, tagged and compressed once.
const representations = new WeakMap<PetPage, Representation>()

/** A page's body and forms; its strong ETag covers whether a next page follows (the `Link` a 304 stands for). */
function pageRepresentation(page: PetPage): Representation {
  let representation = representations.get(page)
  if (representation === undefined) {
    const json = JSON.stringify(page.pets)
    representation = new Representation(json, pageTag(json, page.more))
    representations.set(page, representation)
  }
  return representation
}

/** What the list route answers: the page's 200, a 429 from settling, or nothing (a 304, made by Elysia from the status). */
type ListAnswer = Response | ErrorBody | undefined

/** The 200 of the body in the form chosen for the client, with its type and coding, made at once. */
function send(set: ResponseSet, form: EncodedForm, reused: ReusedHeaders): Response {
  set.headers['content-type'] = JSON_CONTENT_TYPE
  if (form.coding !== undefined) set.headers['content-encoding'] = form.coding
  return reused.respond(form.body, set)
}

function nextPageUrl(base: string, { limit, status }: PetListQuery, lastId: number): string {
  return `${base}${PETS_PATH}?limit=${limit}${status ? `&status=${status}` : ''}&after=${lastId}`
}
