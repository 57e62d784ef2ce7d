import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Locator } from 'playwright-core'
import { makeTestApp } from '../helpers'

const CHROMIUM = '/usr/bin/chromium'
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]
// Screenshots go to test-results/; with UPDATE_SCREENSHOTS=1 the page's top goes to docs/screenshots/, where the
// README shows it (commit it when it changes).
const RESULTS = join(import.meta.dir, '..', '..', 'test-results')
const README_SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? join(import.meta.dir, '..', '..', 'docs', 'screenshots') : RESULTS

const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) {
  // CI installs Debian's chromium (.ci/run); there a missing browser is a failure, never a skip.
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing in CI: .ci/run should have installed Debian's chromium`)
  console.warn(`SKIPPED: the Swagger UI browser test needs ${CHROMIUM} (apt-get install chromium)`)
}

describe.skipIf(!hasChromium)('Swagger UI in a real browser', () => {
  let browser: Browser
  let url: string
  let secret: string
  let stop: () => Promise<void>
  let made: Awaited<ReturnType<typeof makeTestApp>>
  // A page on another origin, and an API that lets it call (CORS_ORIGINS names the page's origin).
  let pageServer: ReturnType<typeof Bun.serve>
  let corsApi: Awaited<ReturnType<typeof makeTestApp>>

  beforeAll(async () => {
    pageServer = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => new Response('<!doctype html><title>shop</title>', { headers: { 'content-type': 'text/html' } }),
    })
    corsApi = await makeTestApp({ corsOrigins: [`http://127.0.0.1:${pageServer.port}`] })
    for (const name of ['Rex', 'Tom']) await corsApi.call('POST', '/v1/pets', { body: { name, categoryId: 1 } })
    corsApi.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    made = await makeTestApp()
    secret = made.secret
    await made.call('POST', '/v1/pets', { body: { name: 'Biscuit', categoryId: 4 } })
    made.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
    url = `http://127.0.0.1:${made.app.server!.port}`
    stop = async () => {
      await made.app.stop()
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await stop?.()
    await corsApi?.app.stop()
    pageServer?.stop(true)
  })

  test('loads /docs, authorizes with a key and runs "Try it out" on listPets and createPet', async () => {
    const page = await browser.newPage()
    const outside: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(url)) outside.push(request.url())
    })
    // The page runs under its Content-Security-Policy: anything it would block shows here.
    const blocked: string[] = []
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) blocked.push(message.text())
    })
    // What the browser downloads for the page: every asset compressed (gzip at first, brotli once it is made).
    const codings = new Map<string, string | undefined>()
    page.on('response', (response) => {
      codings.set(new URL(response.url()).pathname, response.headers()['content-encoding'])
    })
    await page.goto(`${url}/docs`)
    for (const id of ['listPets', 'createPet', 'getPet'])
      await page.locator(`#operations-pets-${id}`).waitFor({ timeout: 15_000 })
    for (const folder of [RESULTS, README_SCREENSHOTS]) mkdirSync(folder, { recursive: true })
    await page.screenshot({ path: join(README_SCREENSHOTS, 'swagger-ui-top.jpg'), quality: 80 })

    // The page says how to get a key before anything else.
    expect(await page.locator('.information-container').innerText()).toContain('Getting a key and trying it here')

    await page.locator('.auth-wrapper .authorize').click()
    await page.locator('.modal-ux input').fill(secret)
    await page.locator('.modal-ux button.authorize').click()
    await page.locator('.modal-ux button.btn-done').click()

    const list = page.locator('#operations-pets-listPets')
    await list.locator('.opblock-summary').click()
    await list.locator('.responses-wrapper').waitFor()
    // Expanded, it was 5,243 px tall when every response listed the eight rate-limit and id headers; now 3,925.
    expect((await list.boundingBox())!.height).toBeLessThan(4_400)
    // The limit parameter's row shows its range and default, not only "Default value: 20".
    const limitRow = await list.locator('tr[data-param-name="limit"]').innerText()
    expect(limitRow).toContain('1 to 100')
    expect(limitRow).toContain('20')
    await list.locator('.try-out__btn').click()
    // "Try it out" pre-fills examples: none may filter the list a newcomer sees first.
    expect(await list.locator('tr[data-param-name="status"] select').inputValue()).toBe('')
    expect(await list.locator('tr[data-param-name="after"] input').inputValue()).toBe('0')
    await list.locator('.execute').click()
    const listStatus = list.locator('.live-responses-table .response .response-col_status').first()
    await listStatus.waitFor({ timeout: 15_000 })
    expect((await listStatus.innerText()).trim()).toBe('200')
    expect(await list.locator('.live-responses-table').innerText()).toContain('Biscuit')

    const create = page.locator('#operations-pets-createPet')
    await create.locator('.opblock-summary').click()
    await create.locator('.try-out__btn').click()
    // Idempotency-Key starts empty, so Execute twice makes two animals, not one replayed.
    expect(await create.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe('')
    await create.locator('textarea.body-param__text').fill('{"name":"Pickle","categoryId":2}')
    const createdIds: number[] = []
    for (let i = 0; i < 2; i++) {
      const answered = page.waitForResponse(
        (response) => response.url().endsWith('/v1/pets') && response.request().method() === 'POST',
      )
      await create.locator('.execute').click()
      const response = await answered
      expect(response.status()).toBe(201)
      expect(response.headers()['idempotent-replayed']).toBeUndefined()
      createdIds.push(((await response.json()) as { id: number }).id)
    }
    expect(new Set(createdIds).size).toBe(2)
    const createStatus = create.locator('.live-responses-table .response .response-col_status').first()
    await createStatus.waitFor({ timeout: 15_000 })
    expect((await createStatus.innerText()).trim()).toBe('201')
    // The key is in the page only: nothing in the browser's storage, and a reload asks for it again.
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(secret)
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(secret)
    expect(await page.locator('.information-container').innerText()).toContain('The key stays in this page only')

    await list.screenshot({ path: join(RESULTS, 'swagger-ui-list-pets.jpg'), quality: 80 })
    expect(outside).toEqual([])
    expect(blocked).toEqual([])
    for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/openapi.json'])
      expect({ asset, coding: codings.get(asset) }).toEqual({ asset, coding: expect.stringMatching(/^(gzip|br)$/) })
  }, 60_000)

  test('runs "Try it out" on the experimental updatePet, getInventory and deletePet', async () => {
    const created = await made.call('POST', '/v1/pets', { body: { name: 'Reserved', categoryId: 3 } })
    const { id } = (await created.json()) as { id: number }
    const page = await browser.newPage()
    await page.goto(`${url}/docs`)
    await page.locator('#operations-pets-updatePet').waitFor({ timeout: 15_000 })
    await page.locator('.auth-wrapper .authorize').click()
    await page.locator('.modal-ux input').fill(secret)
    await page.locator('.modal-ux button.authorize').click()
    await page.locator('.modal-ux button.btn-done').click()
    /** Opens an operation, fills its petId when it has one, runs it, and gives the status and body shown. */
    const run = async (operation: string, fill: (section: Locator) => Promise<void>) => {
      const section = page.locator(operation)
      await section.locator('.opblock-summary').click()
      await section.locator('.try-out__btn').click()
      await fill(section)
      await section.locator('.execute').click()
      const status = section.locator('.live-responses-table .response .response-col_status').first()
      await status.waitFor({ timeout: 15_000 })
      return {
        status: (await status.innerText()).trim(),
        shown: await section.locator('.live-responses-table').innerText(),
      }
    }
    const reserved = await run('#operations-pets-updatePet', async (section) => {
      await section.locator('tr[data-param-name="petId"] input').fill(String(id))
      // If-Match starts empty: an example there would make every change a 412.
      expect(await section.locator('tr[data-param-name="If-Match"] input').inputValue()).toBe('')
      await section.locator('textarea.body-param__text').fill('{"status":"pending"}')
    })
    expect(reserved.status).toBe('200')
    expect(reserved.shown).toContain('"pending"')
    const counted = await run('#operations-store-getInventory', async () => {})
    expect(counted.status).toBe('200')
    expect(counted.shown).toMatch(/"pending": 1/)
    const removed = await run('#operations-pets-deletePet', async (section) => {
      await section.locator('tr[data-param-name="petId"] input').fill(String(id))
    })
    expect(removed.status).toBe('204')
    expect((await made.call('GET', `/v1/pets/${id}`)).status).toBe(404)
  }, 60_000)

  test('runs the store\'s flow in "Try it out" with the examples as they stand: placeOrder, getOrder, updateOrder', async () => {
    // Animal 1 (Biscuit) is what a new store's first createPet makes, and what the examples name.
    expect(await (await made.call('GET', '/v1/pets/1')).json()).toMatchObject({ id: 1, status: 'available' })
    const page = await browser.newPage()
    await page.goto(`${url}/docs`)
    await page.locator('#operations-store-placeOrder').waitFor({ timeout: 15_000 })
    // The store tag explains the flow.
    expect(await page.locator('#operations-tag-store').locator('..').innerText()).toContain('placeOrder')
    await page.locator('.auth-wrapper .authorize').click()
    await page.locator('.modal-ux input').fill(secret)
    await page.locator('.modal-ux button.authorize').click()
    await page.locator('.modal-ux button.btn-done').click()
    const statuses: string[] = []
    for (const operation of ['placeOrder', 'getOrder', 'updateOrder']) {
      const section = page.locator(`#operations-store-${operation}`)
      await section.locator('.opblock-summary').click()
      await section.locator('.try-out__btn').click()
      // Idempotency-Key starts empty: the same example key on every create would replay the first one.
      if (operation === 'placeOrder')
        expect(await section.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe('')
      await section.locator('.execute').click()
      const status = section.locator('.live-responses-table .response .response-col_status').first()
      await status.waitFor({ timeout: 15_000 })
      statuses.push((await status.innerText()).trim())
    }
    expect(statuses).toEqual(['201', '200', '200'])
    expect(await (await made.call('GET', '/v1/store/orders/1')).json()).toMatchObject({ petId: 1, status: 'delivered' })
    expect(await (await made.call('GET', '/v1/pets/1')).json()).toMatchObject({ id: 1, status: 'sold' })
  }, 60_000)

  test('GET / lands on /docs, which is served under its Content-Security-Policy', async () => {
    const page = await browser.newPage()
    const response = await page.goto(url)
    expect(page.url()).toBe(`${url}/docs`)
    expect(response!.headers()['content-security-policy']).toContain("default-src 'self'")
    await page.locator('#operations-pets-listPets').waitFor({ timeout: 15_000 })
  }, 60_000)
  test('a page on another origin calls the API with a key and reads the rate-limit and Link headers (CORS)', async () => {
    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${pageServer.port}/`)
    const api = `http://127.0.0.1:${corsApi.app.server!.port}`
    const read = await page.evaluate(
      async ({ api, secret }) => {
        const response = await fetch(`${api}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${secret}` } })
        const created = await fetch(`${api}/v1/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': 'k1' },
          body: JSON.stringify({ name: 'Pickle', categoryId: 2 }),
        })
        return {
          status: response.status,
          remaining: response.headers.get('x-ratelimit-remaining'),
          link: response.headers.get('link'),
          pets: ((await response.json()) as { name: string }[]).map((pet) => pet.name),
          createdStatus: created.status,
          location: created.headers.get('location'),
        }
      },
      { api, secret: corsApi.secret },
    )
    expect(read).toEqual({
      status: 200,
      remaining: expect.stringMatching(/^\d+$/),
      link: `<${api}/v1/pets?limit=1&after=1>; rel="next"`,
      pets: ['Rex'],
      createdStatus: 201,
      location: `${api}/v1/pets/3`,
    })
    // Without CORS for its origin, the same call fails in the browser: the other app names no origin.
    const refused = await page.evaluate(async (api) => {
      try {
        await fetch(`${api}/v1/pets`, { headers: { authorization: 'Bearer x' } })
        return 'answered'
      } catch (error) {
        return String(error)
      }
    }, url)
    expect(refused).toContain('Failed to fetch')
  }, 60_000)
})
