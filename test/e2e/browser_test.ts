import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
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

  beforeAll(async () => {
    const made = await makeTestApp()
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
    await create.locator('textarea.body-param__text').fill('{"name":"Pickle","categoryId":2}')
    await create.locator('.execute').click()
    const createStatus = create.locator('.live-responses-table .response .response-col_status').first()
    await createStatus.waitFor({ timeout: 15_000 })
    expect((await createStatus.innerText()).trim()).toBe('201')

    await list.screenshot({ path: join(RESULTS, 'swagger-ui-list-pets.jpg'), quality: 80 })
    expect(outside).toEqual([])
    expect(blocked).toEqual([])
  }, 60_000)

  test('GET / lands on /docs, which is served under its Content-Security-Policy', async () => {
    const page = await browser.newPage()
    const response = await page.goto(url)
    expect(page.url()).toBe(`${url}/docs`)
    expect(response!.headers()['content-security-policy']).toContain("default-src 'self'")
    await page.locator('#operations-pets-listPets').waitFor({ timeout: 15_000 })
  }, 60_000)
})
