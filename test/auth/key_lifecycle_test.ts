import { expect, test } from 'bun:test'
import { WWW_AUTHENTICATE } from '../../src/auth/guard'
import { generateApiKey, hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { describeEachStore, eventually, expectError, FREE, IN_A_FUTURE_MINUTE, json, makeTestApp } from '../helpers'

const PET = { name: 'Rex', categoryId: 1 }

describeEachStore('keys with a life, through the app', () => {
  test('an expired key is refused from its expiry on: 401 invalid_token, saying it expired, never which key', async () => {
    let now = Date.parse('2026-11-23T12:00:00.000Z')
    const { call, keys } = await makeTestApp({ clock: () => now })
    const { secret } = await issueKey(keys, { ...FREE, expiresAt: '2026-11-23T12:00:01.000Z' })
    expect((await call('GET', '/v1/pets', { key: secret })).status).toBe(200)
    now += 1000
    const refused = await call('GET', '/v1/pets', { key: secret })
    const body = await expectError(refused, 401, 'unauthorized')
    expect(body.message).toBe('The API key has expired; ask for a new one')
    expect(refused.headers.get('www-authenticate')).toBe(
      `${WWW_AUTHENTICATE}, error="invalid_token", error_description="The API key has expired; ask for a new one"`,
    )
    // Counted as a caller without a valid key is: by address, on the Free plan's limits.
    expect(refused.headers.get('x-ratelimit-limit')).toBe('60')
  })

  test('a read-only key lists and gets (200) and is refused a create: 403 insufficient_scope, counted', async () => {
    const { call, keys } = await makeTestApp()
    const { secret: writer } = await issueKey(keys, FREE)
    const created = await json(await call('POST', '/v1/pets', { key: writer, body: PET }))
    const { secret } = await issueKey(keys, { ...FREE, access: 'read-only' })
    const list = await call('GET', '/v1/pets', { key: secret })
    expect(list.status).toBe(200)
    expect(list.headers.get('x-ratelimit-remaining')).toBe('59')
    expect((await call('GET', `/v1/pets/${created.id}`, { key: secret })).status).toBe(200)
    const refused = await call('POST', '/v1/pets', { key: secret, body: PET })
    const body = await expectError(refused, 403, 'insufficient_scope')
    expect(body.message).toContain('read-only')
    expect(refused.headers.get('www-authenticate')).toBe(`${WWW_AUTHENTICATE}, error="insufficient_scope"`)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('57')
    // Refused before the body is read: a bad body changes nothing.
    await expectError(await call('POST', '/v1/pets', { key: secret, body: '{' }), 403, 'insufficient_scope')
    expect(await json(await call('GET', '/v1/pets', { key: writer }))).toHaveLength(1)
  })

  test('a read-only key over its limit is answered 429, not 403', async () => {
    const { call, keys } = await makeTestApp({ clock: () => IN_A_FUTURE_MINUTE })
    const { secret } = await issueKey(keys, { ...FREE, rpm: 1, access: 'read-only', plan: 'enterprise' })
    expect((await call('POST', '/v1/pets', { key: secret, body: PET })).status).toBe(403)
    expect((await call('POST', '/v1/pets', { key: secret, body: PET })).status).toBe(429)
  })

  test('a rolled pair shares one quota: 60 requests split across the two keys, the 61st is 429 on either', async () => {
    const { call, keys } = await makeTestApp({ clock: () => IN_A_FUTURE_MINUTE })
    const { key, secret: old } = await issueKey(keys, FREE)
    const successor = generateApiKey()
    expect(
      await keys.roll(key.id, hashApiKey(successor), new Date(IN_A_FUTURE_MINUTE + 3_600_000).toISOString(), null),
    ).toBeDefined()
    for (let i = 0; i < 60; i++) {
      const response = await call('GET', '/v1/pets', { key: i % 2 === 0 ? old : successor })
      expect(response.status).toBe(200)
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(59 - i))
    }
    await expectError(await call('GET', '/v1/pets', { key: old }), 429, 'rate_limit_exceeded')
    await expectError(await call('GET', '/v1/pets', { key: successor }), 429, 'rate_limit_exceeded')
  })

  test('unban lifts a ban and clears the minute and the day, through the change notice', async () => {
    const { call, keys } = await makeTestApp({ clock: () => IN_A_FUTURE_MINUTE })
    const { key, secret } = await issueKey(keys, FREE)
    for (let i = 0; i < 60; i++) await call('GET', '/v1/pets', { key: secret })
    let last: Response | undefined
    for (let i = 0; i < 61; i++) last = await call('GET', '/v1/pets', { key: secret })
    await expectError(last!, 429, 'key_banned')
    await keys.resetQuota(key.id)
    const after = await call('GET', '/v1/pets', { key: secret })
    expect(after.status).toBe(200)
    expect(after.headers.get('x-ratelimit-remaining')).toBe('59')
    const quota = await json(await call('GET', '/v1/rate_limit', { key: secret }))
    expect(quota.day.used).toBe(1)
    expect(quota.bannedUntil).toBeNull()
  })

  test('a key in use records its last use, to the minute', async () => {
    const { call, keys, key } = await makeTestApp()
    expect((await keys.get(key.id))?.lastUsedAt).toBeNull()
    const before = Math.floor(Date.now() / 60_000) * 60_000
    await call('GET', '/v1/pets')
    const lastUsed = await eventually(
      async () => (await keys.get(key.id))?.lastUsedAt ?? null,
      new Date(before).toISOString(),
    )
    expect([before, before + 60_000].map((t) => new Date(t).toISOString())).toContain(lastUsed as string)
  })
})
