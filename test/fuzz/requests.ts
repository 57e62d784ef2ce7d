import fc from 'fast-check'

/** One request the fuzzer sends: everything a client controls. */
export interface HostileRequest {
  method: string
  path: string
  query: string
  headers: [string, string][]
  body: string | Uint8Array | undefined
}

/** Percent-encodes text for a URL; a lone surrogate cannot be encoded, so it becomes U+FFFD first. */
function uriEncode(text: string): string {
  return encodeURIComponent(text.toWellFormed())
}

const numberLiterals = fc.constantFrom(
  '0',
  '-0',
  '1',
  '-1',
  '1.5',
  '1e3',
  '1E+2',
  '1e-400',
  '1e400',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '9223372036854775807',
  '18446744073709551616',
  '0.1',
  '.5',
  '5.',
  '01',
  '0x10',
  'NaN',
  'Infinity',
  '-Infinity',
  '1_000',
)
const weirdStrings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\t\n',
    '\u202e',
    '\ud800',
    '🐶',
    'available',
    'AVAILABLE',
    'sold ',
    '../',
    '%00',
    '<script>',
    'null',
  ),
  fc.string({ minLength: 200, maxLength: 2000 }),
)
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  weirdStrings,
  fc.double(),
  fc.bigInt().map((n) => n.toString()),
)

/** A create body with something wrong (or nothing wrong) at every field. */
const petBodies = fc
  .record(
    {
      name: fc.oneof(weirdStrings, jsonValue),
      categoryId: fc.oneof(
        numberLiterals,
        jsonValue.map((v) => JSON.stringify(v) ?? 'null'),
      ),
      status: fc.oneof(
        fc.constantFrom('"available"', '"pending"', '"sold"'),
        jsonValue.map((v) => JSON.stringify(v) ?? 'null'),
      ),
      extra: fc.option(fc.tuple(fc.constantFrom('id', 'tag', '__proto__', 'constructor', 'name'), jsonValue), {
        nil: undefined,
      }),
    },
    { requiredKeys: [] },
  )
  .map(({ name, categoryId, status, extra }) => {
    const parts: string[] = []
    if (name !== undefined) parts.push(`"name":${JSON.stringify(name) ?? 'null'}`)
    if (categoryId !== undefined) parts.push(`"categoryId":${categoryId}`)
    if (status !== undefined) parts.push(`"status":${status}`)
    if (extra) parts.push(`${JSON.stringify(extra[0])}:${JSON.stringify(extra[1]) ?? 'null'}`)
    return `{${parts.join(',')}}`
  })

/** Fields that should be stored: any UTF-16 text for a name (control characters, lone surrogates), any id in range. */
const validFields = {
  name: fc.string({
    unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    minLength: 1,
    maxLength: 255,
  }),
  categoryId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  status: fc.constantFrom('available', 'pending', 'sold'),
}
/** Creates that should succeed. */
const validPets = fc.record(validFields, { requiredKeys: ['name', 'categoryId'] }).map((pet) => JSON.stringify(pet))
/** Changes that should succeed, where the pet exists and its status may move so. */
const validPatches = fc.record(validFields, { requiredKeys: [] }).map((patch) => JSON.stringify(patch))

const deepJson = fc.integer({ min: 1, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth))
const hugeJson = fc.integer({ min: 1, max: 40_000 }).map((n) => JSON.stringify({ name: 'x'.repeat(n), categoryId: 1 }))

const bodies = fc.oneof(
  { weight: 5, arbitrary: validPets },
  { weight: 5, arbitrary: petBodies },
  { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? '') },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: hugeJson },
  { weight: 1, arbitrary: fc.constant(undefined) },
)

const paths = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('/v1/pets', '/v1/pets/', '/v1/pets/1', '/v1/pets/2') },
  // Pets the run has created (ids count up from 1), for PATCH and DELETE to find.
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 200 }).map((id) => `/v1/pets/${id}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('/v1/store/inventory', '/v1/store/inventory/', '/v1/store', '/v1/rate_limit'),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom('/v1/store/orders', '/v1/store/orders/', '/v1/store/orders/1', '/v1/store/orders/1/2'),
      fc.oneof(numberLiterals, weirdStrings).map((id) => `/v1/store/orders/${uriEncode(id)}`),
    ),
  },
  { weight: 3, arbitrary: fc.oneof(numberLiterals, weirdStrings).map((id) => `/v1/pets/${uriEncode(id)}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '/v1/pets/%00',
      '/v1/pets/..',
      '/v1/pets/../pets',
      '//v1//pets',
      '/v1//pets',
      '/v1/pets/1/2',
      '/v1',
      '/v1/',
      '/v1/cats',
      '/V1/pets',
      '/v1/pets%2f1',
      '/docs',
      '/docs/',
      '/openapi.json',
      '/health',
      '/',
      '/%ff',
      '/v1/pets/%e2%82',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => `/${uriEncode(s)}`) },
)

const queryParameter = fc.tuple(
  fc.oneof(fc.constantFrom('limit', 'status', 'after', 'limit', 'after'), fc.string({ maxLength: 10 })),
  fc.oneof(numberLiterals, weirdStrings),
)
const queries = fc.oneof(
  fc
    .array(queryParameter, { maxLength: 5 })
    .map((parameters) => parameters.map(([name, value]) => `${uriEncode(name)}=${uriEncode(value)}`).join('&')),
  fc.integer({ min: 100, max: 12_000 }).map((n) => `status=${'s'.repeat(n)}`),
  fc.constantFrom('', '&&&', '=', 'limit', 'limit=&limit=', '%zz=1', 'limit=5&limit=500'),
)

const contentTypes = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/merge-patch+json',
      '',
      'application/json, text/plain',
      ';;',
    ),
  },
)

/**
 * Requests a careful client sends with `key`: hostile ones alone seldom reach
 * a pet that exists with a body the change accepts, so these make, change and
 * delete pets often enough for the checks on what a 201, a 200 and a 204 did.
 */
function carefulRequests(key: string): fc.Arbitrary<HostileRequest> {
  const bearer: [string, string] = ['authorization', `Bearer ${key}`]
  // Ids the run's creates reach: about one request in fifteen is a careful create.
  const petPath = fc.integer({ min: 1, max: 5000 }).map((id) => `/v1/pets/${id}`)
  const request = (method: string, path: string, headers: [string, string][] = [], body?: string): HostileRequest => ({
    method,
    path,
    query: '',
    headers: [bearer, ...headers],
    body,
  })
  return fc.oneof(
    {
      weight: 3,
      arbitrary: validPets.map((body) => request('POST', '/v1/pets', [['content-type', 'application/json']], body)),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(petPath, validPatches, fc.boolean())
        .map(([path, body, anyVersion]) =>
          request(
            'PATCH',
            path,
            [
              ['content-type', 'application/merge-patch+json'],
              ...(anyVersion ? [['if-match', '*'] as [string, string]] : []),
            ],
            body,
          ),
        ),
    },
    { weight: 1, arbitrary: petPath.map((path) => request('DELETE', path)) },
    { weight: 1, arbitrary: fc.constant(request('GET', '/v1/store/inventory')) },
    // Orders for the pets the run made, and their ends: placed, delivered, cancelled, refused.
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 1, max: 5000 })
        .map((petId) =>
          request('POST', '/v1/store/orders', [['content-type', 'application/json']], JSON.stringify({ petId })),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 2000 }), fc.constantFrom('delivered', 'cancelled'))
        .map(([id, status]) =>
          request(
            'PATCH',
            `/v1/store/orders/${id}`,
            [['content-type', 'application/json']],
            JSON.stringify({ status }),
          ),
        ),
    },
  )
}

/** Requests a hostile or careless client could send, with the valid `key` among the bad ones, and careful ones among them. */
export function hostileRequests(key: string): fc.Arbitrary<HostileRequest> {
  return fc.oneof({ weight: 4, arbitrary: carelessRequests(key) }, { weight: 1, arbitrary: carefulRequests(key) })
}

/** Requests with something wrong (or nothing wrong) everywhere a client has a say. */
function carelessRequests(key: string): fc.Arbitrary<HostileRequest> {
  const authorization = fc.oneof(
    { weight: 16, arbitrary: fc.constantFrom(`Bearer ${key}`, `bearer ${key}`, `BEARER  ${key}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        'Bearer',
        `Basic ${key}`,
        `Bearer ${key}x`,
        `Bearer ${key.slice(0, -1)}`,
        'Bearer ask_',
      ),
    },
    { weight: 1, arbitrary: weirdStrings.filter((s) => /^[\x20-\x7e]*$/.test(s)).map((s) => `Bearer ${s}`) },
  )
  const optionalHeader = (name: string, value: fc.Arbitrary<string>) =>
    fc.option(
      value.map((v) => [name, v] as [string, string]),
      { nil: undefined, freq: 2 },
    )
  const printable = (value: fc.Arbitrary<string>) => value.filter((s) => /^[\x20-\x7e]*$/.test(s))
  return fc
    .record({
      method: fc.constantFrom(
        'GET',
        'GET',
        'POST',
        'POST',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'HEAD',
        'OPTIONS',
        'PROPFIND',
      ),
      path: paths,
      // Without one a third of the time: PATCH, DELETE and the inventory take none, and refuse any.
      query: fc.option(queries, { nil: '', freq: 3 }),
      authorization: fc.option(authorization, { nil: undefined, freq: 16 }),
      contentType: fc.option(contentTypes, { nil: undefined, freq: 5 }),
      idempotencyKey: optionalHeader('idempotency-key', printable(weirdStrings)),
      ifMatch: optionalHeader(
        'if-match',
        fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '"x", *', '', ',', '"', '*, *'), printable(weirdStrings)),
      ),
      requestId: optionalHeader('x-request-id', printable(weirdStrings)),
      forwarded: optionalHeader('x-forwarded-for', printable(weirdStrings)),
      padding: optionalHeader(
        'x-padding',
        fc.integer({ min: 1, max: 20_000 }).map((n) => 'p'.repeat(n)),
      ),
      // A header sent twice arrives joined with ", ".
      duplicate: fc.option(
        fc.tuple(
          fc.constantFrom(
            'authorization',
            'content-type',
            'idempotency-key',
            'if-match',
            'x-request-id',
            'content-length',
          ),
          printable(weirdStrings),
        ),
        { nil: undefined, freq: 4 },
      ),
      body: bodies,
    })
    .map(
      ({
        method,
        path,
        query,
        authorization,
        contentType,
        idempotencyKey,
        ifMatch,
        requestId,
        forwarded,
        padding,
        duplicate,
        body,
      }) => {
        const headers: [string, string][] = []
        if (authorization !== undefined) headers.push(['authorization', authorization])
        if (contentType !== undefined) headers.push(['content-type', contentType])
        for (const header of [idempotencyKey, ifMatch, requestId, forwarded, padding, duplicate])
          if (header) headers.push(header)
        const sendsBody = method !== 'GET' && method !== 'HEAD'
        return { method, path, query, headers, body: sendsBody ? body : undefined }
      },
    )
}
