import { describe, expect, test } from 'bun:test'
import { hashApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { KEY_POLL_MS, PostgresKeyStore } from '../../src/keys/postgres_store'
import { KEY_CHANGE_SEEN_WITHIN_MS } from '../../src/keys/store'
import { cleanupsAfterEach, eventually } from '../helpers'
import { postgresPools, SHARED_STORES } from '../shared_services'

const free = { name: 'a', plan: 'free', rpm: 60, rpd: 1000 } as const

const cleanups = cleanupsAfterEach()

describe.skipIf(!SHARED_STORES)('PostgresKeyStore', () => {
  test(`a revocation or plan change by another process reaches an instance within ${KEY_CHANGE_SEEN_WITHIN_MS} ms (polling every ${KEY_POLL_MS} ms)`, async () => {
    const [server, cli] = await postgresPools(2, cleanups)
    const serving = await PostgresKeyStore.open(server!, { pollMs: KEY_POLL_MS })
    cleanups.push(async () => serving.close())
    const admin = await PostgresKeyStore.open(cli!)
    const { key, secret } = await issueKey(admin, free)
    const hash = hashApiKey(secret)
    expect(await eventually(async () => serving.findActive(hash)?.plan, 'free', KEY_CHANGE_SEEN_WITHIN_MS)).toBe('free')

    // Each change is polled for from the moment it is made until the deadline the requirement names.
    await admin.setPlan(key.id, 'pro', { rpm: 300, rpd: 10_000 })
    expect(await eventually(async () => serving.findActive(hash)?.rpm, 300, KEY_CHANGE_SEEN_WITHIN_MS)).toBe(300)

    await admin.revoke(key.id)
    expect(await eventually(async () => serving.findActive(hash), undefined, KEY_CHANGE_SEEN_WITHIN_MS)).toBeUndefined()
  })
  test('stores the key hash only, and timestamps as timestamptz', async () => {
    const [sql] = await postgresPools(1, cleanups)
    const keys = await PostgresKeyStore.open(sql!)
    const { key, secret } = await issueKey(keys, free)
    const dump = JSON.stringify(await sql!`SELECT * FROM api_keys`)
    expect(dump).not.toContain(secret)
    expect(dump).toContain(hashApiKey(secret))
    expect(key.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(await keys.createFirst('another-hash', free)).toBeUndefined()
    expect((await keys.list()).map((k) => k.id)).toEqual([key.id])
  })
})
