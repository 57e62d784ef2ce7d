import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { NOT_BLANK, PRINTABLE_ASCII } from '../http/validation_patterns'

/** The largest integer a JSON number holds exactly (2^53 - 1). */
export const MAX_ID = Number.MAX_SAFE_INTEGER

/**
 * Availability of a pet. No example: Swagger UI would pre-select it in "Try
 * it out" and filter every list by it; the enum is its own example.
 */
export const PetStatus = withoutDefault(
  t.UnionEnum(['available', 'pending', 'sold'], { description: 'Availability status of the animal' }),
)
export type PetStatus = Static<typeof PetStatus>

/** The status a pet gets when it is created without one. */
export const DEFAULT_STATUS: PetStatus = 'available'

const Name = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: NOT_BLANK,
  description: "The animal's name: 1 to 255 characters, not only white space",
  examples: ['Rex'],
})

const CategoryId = Type.Integer({
  minimum: 1,
  maximum: MAX_ID,
  format: 'int64',
  description: 'Identifier of the category the animal belongs to',
  examples: [1],
})

/** The input shape for creation; any other property is refused. */
export const NewPet = Type.Object(
  { name: Name, categoryId: CategoryId, status: Type.Optional(PetStatus) },
  { additionalProperties: false },
)
export type NewPet = Static<typeof NewPet>

/** The stored and returned shape. */
export const Pet = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      format: 'int64',
      description: 'Assigned by the service',
      examples: [42],
    }),
    name: Name,
    categoryId: CategoryId,
    status: PetStatus,
  },
  { additionalProperties: false },
)
export type Pet = Static<typeof Pet>

/** Page size when `limit` is absent. */
export const DEFAULT_LIMIT = 20
/** The largest page a client may ask for. */
export const MAX_LIMIT = 100

/** The `limit` of a keyset-paged list of `things` (animals, orders): the page size. */
export function limitParameter(things: string) {
  return Type.Integer({
    minimum: 1,
    maximum: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    description: `How many ${things} at most: 1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}`,
    examples: [DEFAULT_LIMIT],
  })
}

/** An id in a path or a body: an integer from 1 to 2^53 − 1, exact as a JSON number. */
export function idSchema(description: string) {
  return Type.Integer({ minimum: 1, maximum: MAX_ID, format: 'int64', description, examples: [1] })
}

/** The `after` of a keyset-paged list of `things` (animals, orders): the last id already seen. */
export function afterParameter(things: string) {
  return Type.Integer({
    minimum: 0,
    maximum: MAX_ID,
    description:
      `The last id already seen: only ${things} with a higher id (keyset paging; the \`Link\` of a page names the ` +
      'next). 0 to 2^53 − 1',
    // Swagger UI fills "Try it out" with a parameter's example: 0 shows where a walk starts and filters nothing.
    examples: [0],
  })
}

/** Query of `GET /pets`; integers arrive as text and are converted strictly first. Unknown parameters are refused. */
export const ListPetsQuery = Type.Object(
  {
    limit: Type.Optional(limitParameter('animals')),
    status: Type.Optional(PetStatus),
    after: Type.Optional(afterParameter('animals')),
  },
  { additionalProperties: false },
)
export type ListPetsQuery = Static<typeof ListPetsQuery>

/** Headers the creates (`POST /pets`, `POST /store/orders`) read; every other header is allowed and ignored. */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: PRINTABLE_ASCII,
      description:
        'Makes the create safe to retry for 24 hours: the same key with the same body replays the first 201 ' +
        '(one key per API key, across animals and orders). ' +
        'A random value, such as the UUID `3f1c2a8e-5b7d-4c39-9a61-0e2d7b4f8c15`; one shaped like an API key is ' +
        'refused with 400, since it would be stored. No example is filled in: "Try it out" would send the same ' +
        'one with every create, so the second would replay the first (or, for another body, be refused with 422)',
    }),
  ),
})

/**
 * The body of `PATCH /pets/{petId}`, a JSON Merge Patch (RFC 7396): any of
 * the fields, each as in NewPet; absent ones keep their value. `null` (which
 * would remove a field), `id` and any other property are refused.
 */
export const PetPatch = Type.Object(
  { name: Type.Optional(Name), categoryId: Type.Optional(CategoryId), status: Type.Optional(PetStatus) },
  { additionalProperties: false },
)
export type PetPatch = Static<typeof PetPatch>

/**
 * The headers a change reads: `If-Match`, described by `description`
 * (whose ETag it names, and from where); every other header is allowed and
 * ignored. No example: Swagger UI would fill it in and make every change a
 * 412 (the description shows one).
 */
export function ifMatchHeaders(description: string) {
  return Type.Object({
    'if-match': Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: `${description} For example \`"1b2k9x0q7f3d"\`` }),
    ),
  })
}

/** Headers `PATCH` and `DELETE /pets/{petId}` read. */
export const PetChangeHeaders = ifMatchHeaders(
  'The ETag of the animal as the client last read it (from `GET /pets/{petId}`, a list, or an earlier ' +
    'change): the change is made only if the animal is still as that, else 412 `precondition_failed`. ' +
    'Without it, the last write wins.',
)

/** What `GET /store/inventory` answers: how many animals have each status. */
export const Inventory = Type.Object(
  {
    available: Type.Integer({ minimum: 0, description: 'Animals available' }),
    pending: Type.Integer({ minimum: 0, description: 'Animals reserved' }),
    sold: Type.Integer({ minimum: 0, description: 'Animals sold' }),
  },
  { additionalProperties: false },
)
export type Inventory = Static<typeof Inventory>

/** Path of `GET /pets/{petId}`. */
export const PetIdParams = Type.Object({ petId: idSchema('Identifier of the animal: 1 to 2^53 − 1') })

/**
 * UnionEnum injects `default: <first value>`: an absent `?status` would
 * silently filter on "available", and a body schema with a default makes
 * Elysia rebuild the body with Object.assign. The enum has no default.
 */
export function withoutDefault<T extends { default?: unknown }>(schema: T): T {
  delete schema.default
  return schema
}
