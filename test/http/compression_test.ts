import { describe, expect, test } from 'bun:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { IMMUTABLE, REVALIDATE_EACH_TIME } from '../../src/docs/routes'
import { acceptedCodings, COMPRESS_MIN_BYTES, Representation } from '../../src/http/compression'
import { MAX_ID } from '../../src/pets/schema'
import { describeEachStore, makeTestApp } from '../helpers'

/** The body as sent, decoded by its Content-Encoding. */
async function decoded(response: Response): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer())
  const coding = response.headers.get('content-encoding')
  if (coding === 'gzip') return gunzipSync(bytes).toString()
  if (coding === 'br') return brotliDecompressSync(bytes).toString()
  expect(coding).toBeNull()
  return new TextDecoder().decode(bytes)
}

describe('acceptedCodings', () => {
  test.each([
    [null, []],
    ['', []],
    ['identity', []],
    ['gzip', ['gzip']],
    ['x-gzip', ['gzip']],
    ['br', ['br']],
    ['gzip, deflate, br, zstd', ['br', 'gzip']],
    ['GZIP;Q=1, BR;q=0.5', ['gzip', 'br']],
    ['br;q=0, gzip', ['gzip']],
    ['*', ['br', 'gzip']],
    ['*;q=0', []],
    ['*, br;q=0', ['gzip']],
    ['gzip;q=0.5, br;q=0.001', ['gzip', 'br']],
    ['deflate', []],
    [' , ;q=1, gzip ; q = 0.8 ', ['gzip']],
  ])('Accept-Encoding %p gives %p', (field, expected) => {
    expect(acceptedCodings(field) as readonly string[]).toEqual(expected)
  })
})

describe('Representation', () => {
  test('a body under 1 KiB is always sent as it is', () => {
    const small = new Representation('x'.repeat(COMPRESS_MIN_BYTES - 1), '"t"')
    expect(small.compressible).toBe(false)
    expect(small.formFor('br').coding).toBeUndefined()
  })

  test('counts bytes, not characters: 400 three-byte characters are compressible', () => {
    expect(new Representation('€'.repeat(400), '"t"').compressible).toBe(true)
  })

  test('each form decodes to the identical bytes, has its own strong tag, and is made once', () => {
    const body = JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, name: `Pet ${id}` })))
    const representation = new Representation(body, '"abc"')
    const br = representation.formFor('br')
    const gzip = representation.formFor('gzip')
    expect(brotliDecompressSync(br.body as Uint8Array).toString()).toBe(body)
    expect(gunzipSync(gzip.body as Uint8Array).toString()).toBe(body)
    expect([representation.identity.etag, br.etag, gzip.etag]).toEqual(['"abc"', '"abc-br"', '"abc-gz"'])
    expect(representation.formFor('gzip, br')).toBe(br)
  })

  test('with the best effort nothing is compressed on the request: the next best ready form is sent meanwhile', async () => {
    const representation = new Representation('a'.repeat(5000), '"t"', 'best')
    expect(representation.formFor('br, gzip').coding).toBeUndefined()
    await representation.compressAll()
    expect(representation.formFor('br, gzip').coding).toBe('br')
    expect(representation.formFor('gzip').coding).toBe('gzip')
  })
})

describeEachStore('compressed answers', () => {
  async function appWithPets(count: number) {
    const made = await makeTestApp()
    for (let i = 0; i < count; i++) await made.call('POST', '/v1/pets', { body: { name: `Pet ${i}`, categoryId: 1 } })
    return made
  }

  test('a page of 1 KiB or more is compressed as the client asks; every coding decodes to the same JSON', async () => {
    const { call } = await appWithPets(30)
    const plain = await call('GET', '/v1/pets')
    const identity = await plain.text()
    expect(identity.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES)
    expect(plain.headers.get('vary')).toBe('Accept-Encoding')
    for (const [field, coding] of [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['identity', null],
    ] as const) {
      // Twice: the second comes from the first-page cache, compressed form included.
      for (let round = 0; round < 2; round++) {
        const response = await call('GET', '/v1/pets', { headers: { 'accept-encoding': field } })
        expect(response.status).toBe(200)
        expect(response.headers.get('content-encoding')).toBe(coding)
        expect(response.headers.get('vary')).toBe('Accept-Encoding')
        expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8')
        expect(await decoded(response)).toBe(identity)
      }
    }
    // A deeper page (not cached) too.
    const deep = await call('GET', '/v1/pets?after=2&limit=25', { headers: { 'accept-encoding': 'gzip' } })
    expect(deep.headers.get('content-encoding')).toBe('gzip')
    expect(JSON.parse(await decoded(deep))).toHaveLength(25)
  })

  test('a compressed page has its own ETag and answers If-None-Match with a 304', async () => {
    const { call } = await appWithPets(30)
    const headers = { 'accept-encoding': 'gzip' }
    const first = await call('GET', '/v1/pets', { headers })
    const etag = first.headers.get('etag')!
    expect(etag).toEndWith('-gz"')
    const again = await call('GET', '/v1/pets', { headers: { ...headers, 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(etag)
    expect(again.headers.get('vary')).toBe('Accept-Encoding')
  })

  test('a small page or pet, a create and an error are sent as they are, without Vary', async () => {
    const { call } = await appWithPets(2)
    const headers = { 'accept-encoding': 'gzip, br' }
    for (const response of [
      await call('GET', '/v1/pets', { headers }),
      await call('GET', '/v1/pets/1', { headers }),
      await call('POST', '/v1/pets', { headers, body: { name: 'Rex', categoryId: 1 } }),
      await call('GET', '/v1/pets/99', { headers }),
    ]) {
      expect(response.headers.get('content-encoding')).toBeNull()
      expect(response.headers.get('vary')).toBeNull()
    }
  })

  test('a pet is never 1 KiB: the largest name (255 three-byte characters) stays under it, so getPet is never compressed', async () => {
    const { call } = await appWithPets(0)
    await call('POST', '/v1/pets', { body: { name: '€'.repeat(255), categoryId: MAX_ID, status: 'available' } })
    const response = await call('GET', '/v1/pets/1', { headers: { 'accept-encoding': 'br' } })
    expect(response.status).toBe(200)
    expect(Buffer.byteLength(await response.text())).toBeLessThan(COMPRESS_MIN_BYTES)
  })

  test('/openapi.json and the docs assets are compressed, tagged and versioned', async () => {
    const { call } = await makeTestApp()
    const headers = { 'accept-encoding': 'gzip' }
    const document = await call('GET', '/openapi.json', { key: null, headers })
    expect(document.headers.get('content-encoding')).toBe('gzip')
    expect(document.headers.get('cache-control')).toBe(REVALIDATE_EACH_TIME)
    expect(JSON.parse(await decoded(document)).openapi).toStartWith('3.1')
    const page = await (await call('GET', '/docs', { key: null })).text()
    const bundleUrl = /src="(docs\/swagger-ui-bundle\.js\?v=\w+)"/.exec(page)![1]!
    const plain = await call('GET', `/${bundleUrl}`, { key: null })
    expect(plain.headers.get('cache-control')).toBe(IMMUTABLE)
    const identity = await plain.text()
    // The first ask starts compressing on zlib's threads; it is ready within a few seconds.
    let encoded = await call('GET', `/${bundleUrl}`, { key: null, headers: { 'accept-encoding': 'br' } })
    for (let i = 0; i < 200 && encoded.headers.get('content-encoding') !== 'br'; i++) {
      await Bun.sleep(50)
      encoded = await call('GET', `/${bundleUrl}`, { key: null, headers: { 'accept-encoding': 'br' } })
    }
    expect(encoded.headers.get('content-encoding')).toBe('br')
    expect(encoded.headers.get('vary')).toBe('Accept-Encoding')
    expect(await decoded(encoded)).toBe(identity)
    const etag = encoded.headers.get('etag')!
    const revalidated = await call('GET', `/${bundleUrl}`, {
      key: null,
      headers: { 'accept-encoding': 'br', 'if-none-match': etag },
    })
    expect(revalidated.status).toBe(304)
    // Without its version (or with an old one) the same asset must be revalidated each time.
    for (const url of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui-bundle.js?v=old'])
      expect((await call('GET', url, { key: null })).headers.get('cache-control')).toBe(REVALIDATE_EACH_TIME)
  }, 30_000)
})
