import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import { ERROR_CODES, type ErrorCode } from '../../src/http/errors'
import { describePlans } from '../../src/keys/plans'
import { BAN_DURATION_TEXT } from '../../src/ratelimit/windows'
import { describeEachStore, json, makeTestApp, tempDir } from '../helpers'

async function servedDocument(publicUrl?: string) {
  const { call } = await makeTestApp(publicUrl ? { publicUrl } : {})
  const response = await call('GET', '/openapi.json', { key: null })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toStartWith('application/json')
  return json(response)
}

const OPERATIONS = [
  ['/pets', 'get', 'listPets', ['200', '304', '400', '401', '429', '500', '503']],
  ['/pets', 'post', 'createPet', ['201', '400', '401', '403', '413', '415', '422', '429', '500', '503']],
  ['/pets/{petId}', 'get', 'getPet', ['200', '304', '400', '401', '404', '429', '500', '503']],
  ['/rate_limit', 'get', 'getRateLimit', ['200', '400', '401', '429', '500', '503']],
  [
    '/pets/{petId}',
    'patch',
    'updatePet',
    ['200', '400', '401', '403', '404', '409', '412', '413', '415', '429', '500', '503'],
  ],
  ['/pets/{petId}', 'delete', 'deletePet', ['204', '400', '401', '403', '404', '409', '412', '429', '500', '503']],
  ['/store/inventory', 'get', 'getInventory', ['200', '304', '400', '401', '429', '500', '503']],
  [
    '/store/orders',
    'post',
    'placeOrder',
    ['201', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503'],
  ],
  ['/store/orders', 'get', 'listOrders', ['200', '304', '400', '401', '429', '500', '503']],
  ['/store/orders/{orderId}', 'get', 'getOrder', ['200', '304', '400', '401', '404', '429', '500', '503']],
  [
    '/store/orders/{orderId}',
    'patch',
    'updateOrder',
    ['200', '400', '401', '403', '404', '409', '412', '413', '415', '429', '500', '503'],
  ],
] as const

/** The operations of version 1.2, experimental. */
const EXPERIMENTAL = ['updatePet', 'deletePet', 'getInventory', 'placeOrder', 'listOrders', 'getOrder', 'updateOrder']

describeEachStore('GET /openapi.json', () => {
  test('passes @apidevtools/swagger-parser validation', async () => {
    const document = await servedDocument()
    await SwaggerParser.validate(structuredClone(document))
  })

  test('passes redocly lint with no errors', async () => {
    const document = await servedDocument('https://pets.example')
    const workspace = tempDir('animal-store-openapi-')
    try {
      const file = join(workspace.dir, 'openapi.json')
      await Bun.write(file, JSON.stringify(document))
      const lint = Bun.spawn(
        [join(import.meta.dir, '../../node_modules/.bin/redocly'), 'lint', file, '--format=json'],
        {
          stdout: 'pipe',
          stderr: 'pipe',
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      )
      const [stdout, code] = await Promise.all([new Response(lint.stdout).text(), lint.exited])
      const report = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number }
        problems: { message: string; severity: string }[]
      }
      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([])
      expect(report.totals.errors).toBe(0)
      expect(code).toBe(0)
    } finally {
      workspace.cleanup()
    }
  }, 60_000)

  test("passes Spectral's spectral:oas ruleset with no errors and no warnings", async () => {
    const document = await servedDocument('https://pets.example')
    const workspace = tempDir('animal-store-spectral-')
    try {
      const file = join(workspace.dir, 'openapi.json')
      const ruleset = join(workspace.dir, '.spectral.yaml')
      await Bun.write(file, JSON.stringify(document))
      await Bun.write(ruleset, 'extends: ["spectral:oas"]\n')
      const lint = Bun.spawn(
        [
          join(import.meta.dir, '../../node_modules/.bin/spectral'),
          'lint',
          file,
          '--ruleset',
          ruleset,
          '--format',
          'json',
          '--quiet',
        ],
        { stdout: 'pipe', stderr: 'pipe' },
      )
      const [stdout, code] = await Promise.all([new Response(lint.stdout).text(), lint.exited])
      const problems = (JSON.parse(stdout) as { code: string; message: string; severity: number }[]).map(
        ({ code, message, severity }) => `${['error', 'warning', 'info', 'hint'][severity]} ${code}: ${message}`,
      )
      expect(problems.filter((problem) => /^(error|warning) /.test(problem))).toEqual([])
      expect(code).toBe(0)
    } finally {
      workspace.cleanup()
    }
  }, 60_000)

  test('describes exactly the eleven operations, under a server ending in /v1', async () => {
    const document = await servedDocument()
    expect(document.openapi).toStartWith('3.1')
    expect(document.info.version).toBe('1.0.0')
    // Absolute, from the request's scheme and host without PUBLIC_URL, as Link and Location are.
    expect(document.servers).toEqual([expect.objectContaining({ url: 'http://localhost/v1' })])
    expect(Object.keys(document.paths).sort()).toEqual([
      '/pets',
      '/pets/{petId}',
      '/rate_limit',
      '/store/inventory',
      '/store/orders',
      '/store/orders/{orderId}',
    ])
    const ids = OPERATIONS.map(([path, method]) => document.paths[path][method].operationId)
    expect(ids).toEqual([
      'listPets',
      'createPet',
      'getPet',
      'getRateLimit',
      'updatePet',
      'deletePet',
      'getInventory',
      'placeOrder',
      'listOrders',
      'getOrder',
      'updateOrder',
    ])
    expect(Object.keys(document.paths['/pets'])).toEqual(['get', 'post'])
    expect(Object.keys(document.paths['/pets/{petId}']).sort()).toEqual(['delete', 'get', 'patch'])
  })

  test('marks the operations of version 1.2 experimental, and only those', async () => {
    const document = await servedDocument()
    for (const [path, method, id] of OPERATIONS) {
      const operation = document.paths[path][method]
      const experimental = EXPERIMENTAL.includes(id)
      expect({ id, stability: operation['x-stability'] }).toEqual({
        id,
        stability: experimental ? 'experimental' : undefined,
      })
      expect({ id, experimental: operation.description.startsWith('Experimental') }).toEqual({ id, experimental })
    }
  })

  test('describes conditional requests: If-None-Match in, ETag out, a 304 without a body', async () => {
    const document = await servedDocument()
    for (const path of ['/pets', '/pets/{petId}']) {
      const operation = document.paths[path].get
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' })
      expect(operation.responses['200'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' })
      const notModified = operation.responses['304'].$ref
        ? document.components.responses.NotModified
        : operation.responses['304']
      expect(notModified.content).toBeUndefined()
      expect(notModified.headers.ETag).toEqual({ $ref: '#/components/headers/ETag' })
    }
    expect(document.components.parameters.IfNoneMatch).toMatchObject({ name: 'If-None-Match', in: 'header' })
    expect(document.paths['/pets'].post.parameters ?? []).not.toContainEqual({
      $ref: '#/components/parameters/IfNoneMatch',
    })
  })

  test('builds servers from each request, like Link and Location', async () => {
    const { app } = await makeTestApp()
    for (const origin of ['http://api.example:8080', 'http://127.0.0.1:3000']) {
      const document = await json(await app.handle(new Request(`${origin}/openapi.json`)))
      expect(document.servers).toEqual([{ url: `${origin}/v1`, description: 'This service' }])
    }
  })

  test('shows an example on every parameter but the filters, If-Match and Idempotency-Key, on the bodies and every answer with a body', async () => {
    const document = await servedDocument()
    const resolve = (item: { $ref?: string }, kind: string) =>
      item.$ref ? document.components[kind][item.$ref.split('/').pop()!] : item
    for (const [path, method] of OPERATIONS) {
      const operation = document.paths[path][method]
      // The filters (status, an order list's petId), If-Match and Idempotency-Key have none on purpose: Swagger
      // UI would fill them in, filtering every list, making every change a 412 and every create after the first
      // a replay (their descriptions show one).
      for (const parameter of (operation.parameters ?? []).map((p: { $ref?: string }) => resolve(p, 'parameters')))
        if (!['status', 'petId', 'If-Match', 'Idempotency-Key'].includes(parameter.name) || parameter.in === 'path')
          expect({ [parameter.name]: parameter.example }).not.toEqual({ [parameter.name]: undefined })
      for (const [status, answer] of Object.entries(operation.responses)) {
        const content = resolve(answer as { $ref?: string }, 'responses').content?.['application/json']
        if (content)
          expect({ [`${path} ${status}`]: content.example }).not.toEqual({ [`${path} ${status}`]: undefined })
      }
    }
    expect(document.paths['/pets'].post.requestBody.content['application/json'].example).toEqual({
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    })
    const patch = document.paths['/pets/{petId}'].patch.requestBody.content
    expect(Object.keys(patch)).toEqual(['application/merge-patch+json', 'application/json'])
    for (const media of Object.values(patch) as { example?: unknown; schema: unknown }[]) {
      expect(media.example).not.toBeUndefined()
      expect(media.schema).toEqual({ $ref: '#/components/schemas/PetPatch' })
    }
  })

  test('puts PUBLIC_URL in servers', async () => {
    expect((await servedDocument('https://pets.example/api')).servers[0].url).toBe('https://pets.example/api/v1')
  })

  test('marks getPet deprecated with its sunset date', async () => {
    const getPet = (await servedDocument()).paths['/pets/{petId}'].get
    expect(getPet.deprecated).toBe(true)
    expect(getPet.description).toContain('5 December 2030')
    expect(getPet.description).toContain('Thu, 05 Dec 2030 00:00:00 GMT')
  })

  test('has the pet, order, Error, RateLimitStatus and Inventory components', async () => {
    const { schemas } = (await servedDocument()).components
    expect(Object.keys(schemas).sort()).toEqual([
      'Error',
      'Inventory',
      'NewOrder',
      'NewPet',
      'Order',
      'OrderPatch',
      'OrderStatus',
      'Pet',
      'PetPatch',
      'PetStatus',
      'RateLimitStatus',
    ])
    expect(schemas.Order.required).toEqual(['id', 'petId', 'status', 'placedAt', 'updatedAt'])
    expect(schemas.Order.properties.status).toEqual({ $ref: '#/components/schemas/OrderStatus' })
    expect(schemas.RateLimitStatus.properties.plan.enum).toEqual(['free', 'pro', 'business', 'enterprise'])
    expect(schemas.OrderStatus).toMatchObject({ type: 'string', enum: ['placed', 'delivered', 'cancelled'] })
    expect(schemas.NewOrder).toMatchObject({ required: ['petId'], additionalProperties: false })
    expect(schemas.OrderPatch).toMatchObject({ required: ['status'], additionalProperties: false })
    expect(schemas.OrderPatch.properties.status.enum).toEqual(['delivered', 'cancelled'])
    expect(schemas.PetPatch.required).toBeUndefined()
    expect(schemas.PetPatch.additionalProperties).toBe(false)
    expect(schemas.PetPatch.properties.status).toEqual({ $ref: '#/components/schemas/PetStatus' })
    expect(schemas.Inventory.required).toEqual(['available', 'pending', 'sold'])
    expect(schemas.PetStatus).toMatchObject({ type: 'string', enum: ['available', 'pending', 'sold'] })
    expect(schemas.NewPet.required).toEqual(['name', 'categoryId'])
    expect(schemas.NewPet.additionalProperties).toBe(false)
    expect(schemas.Pet.required).toEqual(['id', 'name', 'categoryId', 'status'])
    expect(schemas.Error.required).toEqual(['code', 'message', 'status'])
    // 1.2: the field at fault, and every violation of a validation; optional, so older clients see no change.
    expect(schemas.Error.properties.param).toMatchObject({ type: 'string' })
    expect(schemas.Error.properties.errors).toMatchObject({
      type: 'array',
      maxItems: 64,
      items: { type: 'object', required: ['param', 'message'], additionalProperties: false },
    })
    expect((await servedDocument()).components.responses.InvalidRequest.content['application/json'].example).toEqual({
      code: 'invalid_request',
      message: '"limit" must be an integer from 1 to 100',
      status: 400,
      param: 'limit',
      errors: [
        { param: 'limit', message: '"limit" must be an integer from 1 to 100' },
        { param: 'status', message: '"status" must be one of available, pending, sold' },
      ],
    })
    expect(schemas.NewPet.properties.categoryId).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: 1,
      maximum: 9007199254740991,
    })
    expect(schemas.NewPet.properties.status).toEqual({ $ref: '#/components/schemas/PetStatus' })
  })

  test('secures every operation with the bearer scheme', async () => {
    const document = await servedDocument()
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    for (const [path, method] of OPERATIONS) expect(document.paths[path][method].security).toEqual([{ bearerAuth: [] }])
  })

  test('lists every response each operation can give, with the rate-limit headers: listed, or named', async () => {
    const document = await servedDocument()
    const resolve = (response: { $ref?: string }) =>
      response.$ref ? document.components.responses[response.$ref.split('/').pop()!] : response
    const rateLimitHeaders = [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-RateLimit-Used',
      'X-RateLimit-Resource',
      'RateLimit-Policy',
      'RateLimit',
    ]
    for (const [path, method, , statuses] of OPERATIONS) {
      const responses = document.paths[path][method].responses
      expect(Object.keys(responses)).toEqual([...statuses])
      for (const status of statuses) {
        const response = resolve(responses[status])
        expect(response.headers).toHaveProperty('X-Request-Id')
        // Successes and the 429 list them; the other answers name them, so Swagger UI is not a wall of rows.
        if (status.startsWith('2') || status === '429')
          expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(rateLimitHeaders))
        else expect(response.description).toContain('X-RateLimit-* and RateLimit headers')
        if (Number(status) >= 400)
          expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' })
        if (status === '429' || status === '503') expect(response.headers).toHaveProperty('Retry-After')
        if (status === '401') expect(response.headers).toHaveProperty('WWW-Authenticate')
        if (path === '/pets/{petId}' && method === 'get') {
          expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']))
        }
      }
    }
    expect(document.paths['/pets'].post.responses['201'].headers).toHaveProperty('Location')
    expect(document.paths['/pets'].get.responses['200'].headers).toHaveProperty('Link')
  })

  test('bounds every array it answers with maxItems (a page holds 100 at most)', async () => {
    const arrays: { at: string; maxItems: unknown }[] = []
    const walk = (value: unknown, at: string) => {
      if (value === null || typeof value !== 'object') return
      const node = value as Record<string, unknown>
      if (node.type === 'array') arrays.push({ at, maxItems: node.maxItems })
      for (const [key, child] of Object.entries(node)) walk(child, `${at}/${key}`)
    }
    walk(await servedDocument(), '#')
    expect(arrays.length).toBeGreaterThanOrEqual(2)
    for (const array of arrays) expect(array).toEqual({ at: array.at, maxItems: expect.any(Number) })
  })

  test('writes integers as integers, with the limits the routes enforce', async () => {
    const document = await servedDocument()
    const parameters = Object.fromEntries(
      document.paths['/pets'].get.parameters.map((p: { name: string }) => [p.name, p]),
    )
    expect(parameters.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
    expect(parameters.after.schema).toMatchObject({ type: 'integer', minimum: 0 })
    expect(parameters.status.schema).toEqual({ $ref: '#/components/schemas/PetStatus' })
    expect(document.paths['/pets/{petId}'].get.parameters[0]).toMatchObject({
      name: 'petId',
      in: 'path',
      required: true,
      schema: { type: 'integer', format: 'int64' },
    })
    expect(JSON.stringify(document)).not.toContain('anyOf')
  })

  test('documents the Idempotency-Key header of createPet and its replay header', async () => {
    const createPet = (await servedDocument()).paths['/pets'].post
    expect(createPet.parameters).toEqual([
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: expect.objectContaining({ type: 'string', maxLength: 255 }),
      }),
    ])
    expect(createPet.responses['201'].headers).toHaveProperty('Idempotent-Replayed')
  })

  test('lists every Error code of ERROR_CODES, and each documented error matches its status', async () => {
    const document = await servedDocument()
    expect(document.components.schemas.Error.properties.code.enum).toEqual(Object.keys(ERROR_CODES))
    const resolve = (response: { $ref?: string }) =>
      response.$ref ? document.components.responses[response.$ref.split('/').pop()!] : response
    for (const [path, method] of OPERATIONS) {
      for (const [status, response] of Object.entries(document.paths[path][method].responses)) {
        if (Number(status) < 400) continue
        const example = resolve(response as { $ref?: string }).content['application/json'].example
        expect(ERROR_CODES[example.code as ErrorCode].status).toBe(Number(status))
        expect(example.status).toBe(Number(status))
      }
    }
  })

  test('states the API rules in its description, from the constants the service obeys', async () => {
    const { description } = (await servedDocument()).info
    for (const [code, { status }] of Object.entries(ERROR_CODES))
      expect(description).toContain(`| ${status} | \`${code}\` |`)
    expect(description).toContain(describePlans())
    expect(description).toContain(`for ${BAN_DURATION_TEXT}`)
    for (const topic of [
      '## Keys',
      '## Errors',
      '## Rate limits',
      '## Listing and paging',
      '## Retrying a create',
      '## Reserving, selling and correcting an animal (experimental)',
      '## Deprecation',
    ]) {
      expect(description).toContain(topic)
    }
  })

  test('documents a JSON request body for createPet', async () => {
    const body = (await servedDocument()).paths['/pets'].post.requestBody
    expect(body).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
    })
    expect(Object.keys(body.content)).toEqual(['application/json'])
  })
})

describe('GET /docs', () => {
  test('serves Swagger UI from local assets, without a key and without any outside URL', async () => {
    const { call } = await makeTestApp()
    const page = await call('GET', '/docs', { key: null })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toStartWith('text/html')
    const html = await page.text()
    expect(html).not.toMatch(/https?:\/\//)
    // The start-up script is a served file (the page's CSP allows no inline script); it never asks swagger.io.
    const init = await (await call('GET', '/docs/swagger-init.js', { key: null })).text()
    expect(init).toContain('validatorUrl: null')
    expect(init).not.toMatch(/https?:\/\//)
    for (const asset of ['docs/swagger-ui-bundle.js', 'docs/swagger-ui.css']) {
      expect(html).toContain(asset)
      const response = await call('GET', `/${asset}`, { key: null })
      expect(response.status).toBe(200)
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
    }
  })

  test('has an icon: inline in the page, and at /favicon.ico for the other pages a browser shows', async () => {
    const { call } = await makeTestApp()
    const html = await (await call('GET', '/docs', { key: null })).text()
    expect(html).toContain('<link rel="icon" href="data:image/svg+xml,')
    const icon = await call('GET', '/favicon.ico', { key: null })
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
    expect(await icon.text()).toStartWith('<svg')
  })

  test('redirects /docs/ to /docs so relative asset URLs resolve', async () => {
    const { call } = await makeTestApp()
    const response = await call('GET', '/docs/', { key: null })
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('../docs')
  })
})

describe('GET /openapi.json under Host churn (issue 31)', () => {
  test('past eight bases, a new Host gets the same document with its own servers, uncompressed and not kept', async () => {
    const { app } = await makeTestApp()
    const get = (host: string, headers: Record<string, string> = {}) =>
      app.handle(new Request(`http://${host}/openapi.json`, { headers: { 'accept-encoding': 'br, gzip', ...headers } }))
    const first = await get('a0.example')
    expect(first.headers.get('content-encoding')).toMatch(/^(br|gzip)$/)
    await first.arrayBuffer()
    const plain = await get('a0.example', { 'accept-encoding': 'identity' })
    const reference = (await plain.json()) as { servers: { url: string }[]; paths: object }
    for (let i = 1; i < 8; i++) await (await get(`a${i}.example`)).arrayBuffer()
    const churned = await get('z-9.example:8080')
    expect(churned.status).toBe(200)
    expect(churned.headers.get('content-encoding')).toBeNull()
    const text = await churned.text()
    const document = JSON.parse(text) as typeof reference
    // The Host is written into servers; the rest is the document every base gets.
    expect(document.servers).toEqual([expect.objectContaining({ url: 'http://z-9.example:8080/v1' })])
    expect({ ...document, servers: reference.servers }).toEqual(reference)
    const etag = churned.headers.get('etag') as string
    expect((await get('z-9.example:8080', { 'if-none-match': etag })).status).toBe(304)
    // The first bases are still kept compressed.
    expect((await get('a3.example')).headers.get('content-encoding')).toMatch(/^(br|gzip)$/)
  })
})
