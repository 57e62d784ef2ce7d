import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { FREE, makeTestApp } from '../helpers'

// The client developer's own install (openapi-typescript needs TypeScript 5; the service's tsc is 7).
const CLIENT_DIR = join(import.meta.dir, '..', 'generated_client')
const OUT = join(CLIENT_DIR, 'out')
const bin = (name: string) => join(CLIENT_DIR, 'node_modules', '.bin', name)

/**
 * What a client developer writes against the generated types: every call
 * checked by tsc --strict, every answer read through them. It prints one JSON
 * line of what it saw.
 */
const CLIENT = `import createClient from 'openapi-fetch'
import type { components, paths } from './schema'

declare const process: { argv: string[] }
type Pet = components['schemas']['Pet']
type ApiError = components['schemas']['Error']

const [baseUrl, key] = process.argv.slice(2) as [string, string]
const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } })

const created: Pet[] = []
for (const name of ['Rex', 'Tom', 'Kiki']) {
  const { data, response } = await client.POST('/pets', { body: { name, categoryId: 1 } })
  if (data === undefined) throw new Error(\`create: \${response.status}\`)
  created.push(data)
}

// Every page, following Link: <...>; rel="next" to the end.
const seen: Pet[] = []
let after: number | undefined
for (;;) {
  const { data, response } = await client.GET('/pets', { params: { query: { limit: 2, after } } })
  if (data === undefined) throw new Error(\`list: \${response.status}\`)
  seen.push(...data)
  const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
  if (next === undefined) break
  after = Number(new URL(next).searchParams.get('after'))
}

const one = await client.GET('/pets/{petId}', { params: { path: { petId: created[0]!.id } } })
const invalid = await client.GET('/pets', { params: { query: { limit: 0, status: 'available' } } })
const badRequest: ApiError | undefined = invalid.error
// 1.2's Error fields, typed: the field at fault, and one entry per violation for a form to mark.
const badFields: string[] = (
  await client.POST('/pets', { body: { name: '', categoryId: 0 } as components['schemas']['NewPet'] })
).error?.errors?.map((entry) => entry.param) ?? []
const refused = await createClient<paths>({ baseUrl }).GET('/pets')
const unauthorized: ApiError | undefined = refused.error

console.log(JSON.stringify({
  created: created.map((pet) => pet.name),
  seen: seen.map((pet) => pet.name),
  got: one.data?.name,
  badRequest: [invalid.response.status, badRequest?.code, badRequest?.param],
  badFields,
  unauthorized: [refused.response.status, unauthorized?.code],
}))
`

/**
 * A client made with @hey-api/openapi-ts from the document a production
 * deployment serves (PUBLIC_URL=https://api.example.com): the generator bakes
 * that address in, and the client sets where it runs at run time. Prints one
 * JSON line of what it saw.
 */
const HEY_CLIENT = `import { client } from './hey/client.gen'
import { createPet, placeOrder } from './hey/sdk.gen'
import type { Error as ApiError, Order, Pet } from './hey/types.gen'

declare const process: { argv: string[] }
const [baseUrl, key] = process.argv.slice(2) as [string, string]
const baked = client.getConfig().baseUrl
client.setConfig({ baseUrl, auth: () => key })

const created = await createPet({ body: { name: 'Hey', categoryId: 1 } })
const pet: Pet | undefined = created.data
const invalid = await createPet({ body: { name: '', categoryId: 0 } })
const error: ApiError | undefined = invalid.error
const ordered = await placeOrder({ body: { petId: pet!.id } })
const order: Order | undefined = ordered.data

console.log(JSON.stringify({
  baked,
  created: pet?.name,
  invalid: [invalid.response.status, error?.param, error?.errors?.map((entry) => entry.param)],
  order: order?.status,
}))
`

/** How a client is type-checked: strict, with the browser's globals only, so no type package of this repository leaks in. */
const STRICT = {
  strict: true,
  noEmit: true,
  target: 'es2022',
  module: 'esnext',
  moduleResolution: 'bundler',
  lib: ['es2022', 'dom'],
  types: [],
}

/** Runs a command to its end, without blocking this process (the service under test answers in it). */
async function run(command: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(command, { cwd, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, stdout, stderr }
}

describe('clients generated from /openapi.json (openapi-typescript + openapi-fetch, @hey-api/openapi-ts)', () => {
  let stop: () => Promise<unknown>
  let url: string
  let secret: string

  beforeAll(async () => {
    // Installed on first use, from its own lock file, so the service's install stays lean.
    if (!existsSync(bin('openapi-typescript')) || !existsSync(bin('openapi-ts'))) {
      const install = await run(['npm', 'ci', '--no-audit', '--no-fund'], CLIENT_DIR)
      if (install.code !== 0) throw new Error(`npm ci in test/generated_client failed:\n${install.stderr}`)
    }
    const made = await makeTestApp({}, FREE)
    made.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    url = `http://127.0.0.1:${made.app.server!.port}`
    secret = made.secret
    stop = () => made.app.stop()
    rmSync(OUT, { recursive: true, force: true })
    mkdirSync(OUT, { recursive: true })
  }, 180_000)
  afterAll(async () => {
    await stop?.()
    rmSync(OUT, { recursive: true, force: true })
  })

  test('type-checks under tsc --strict and drives the API: create, list to the end, get, a typed 400 and 401', async () => {
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as { servers: { url: string }[] }
    // The served servers entry is absolute: what a generator bakes in reaches the service.
    const server = document.servers[0]!.url
    expect(server).toBe(`${url}/v1`)
    await Bun.write(join(OUT, 'openapi.json'), JSON.stringify(document))
    const generate = await run([bin('openapi-typescript'), 'openapi.json', '-o', 'schema.d.ts'], OUT)
    expect(generate.code).toBe(0)
    await Bun.write(join(OUT, 'client.ts'), CLIENT)
    await Bun.write(join(OUT, 'tsconfig.json'), JSON.stringify({ compilerOptions: STRICT, files: ['client.ts'] }))
    const check = await run([bin('tsc'), '-p', 'tsconfig.json'], OUT)
    expect(check.stdout + check.stderr).toBe('')
    expect(check.code).toBe(0)
    const client = await run([process.execPath, 'client.ts', server, secret], OUT)
    expect(client.stderr).toBe('')
    expect(JSON.parse(client.stdout)).toEqual({
      created: ['Rex', 'Tom', 'Kiki'],
      seen: ['Rex', 'Tom', 'Kiki'],
      got: 'Rex',
      badRequest: [400, 'invalid_request', 'limit'],
      badFields: ['name', 'categoryId'],
      unauthorized: [401, 'unauthorized'],
    })
  }, 60_000)

  test('a hey-api client, generated for production (PUBLIC_URL), is pointed at any base URL at run time', async () => {
    // As a production deployment serves it: PUBLIC_URL names the public address, which the generator bakes in.
    const production = await makeTestApp({ publicUrl: 'https://api.example.com' })
    const document = (await (await production.app.handle(new Request('http://localhost/openapi.json'))).json()) as {
      servers: { url: string }[]
    }
    expect(document.servers[0]!.url).toBe('https://api.example.com/v1')
    await Bun.write(join(OUT, 'production.json'), JSON.stringify(document))
    const generate = await run(
      [process.execPath, bin('openapi-ts'), '-i', 'production.json', '-o', 'hey', '-c', '@hey-api/client-fetch'],
      OUT,
    )
    expect({ code: generate.code, stderr: generate.stderr }).toEqual({ code: 0, stderr: '' })
    await Bun.write(join(OUT, 'hey_client.ts'), HEY_CLIENT)
    // hey-api's runtime iterates URLSearchParams.
    const compilerOptions = { ...STRICT, lib: [...STRICT.lib, 'dom.iterable'], skipLibCheck: true }
    await Bun.write(join(OUT, 'tsconfig.hey.json'), JSON.stringify({ compilerOptions, files: ['hey_client.ts'] }))
    const check = await run([bin('tsc'), '-p', 'tsconfig.hey.json'], OUT)
    expect(check.stdout + check.stderr).toBe('')
    const client = await run([process.execPath, 'hey_client.ts', `${url}/v1`, secret], OUT)
    expect(client.stderr).toBe('')
    expect(JSON.parse(client.stdout)).toEqual({
      baked: 'https://api.example.com/v1',
      created: 'Hey',
      invalid: [400, 'name', ['name', 'categoryId']],
      order: 'placed',
    })
  }, 120_000)
})
