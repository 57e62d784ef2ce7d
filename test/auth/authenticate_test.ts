import { describe, expect, test } from 'bun:test'
import { authenticate, refusalReason } from '../../src/auth/authenticate'
import { openDatabase } from '../../src/db/sqlite'
import { generateApiKey } from '../../src/keys/api_key'
import { issueKey } from '../../src/keys/issue'
import { SqliteKeyStore } from '../../src/keys/sqlite_store'
import type { KeyStore } from '../../src/keys/store'
import { UNLIMITED } from '../helpers'

describe('authenticate', () => {
  test('finds the active key a bearer header carries', async () => {
    const keys = new SqliteKeyStore(openDatabase(':memory:'))
    const { key, secret } = await issueKey(keys, UNLIMITED)
    expect(authenticate(`Bearer ${secret}`, keys)?.id).toBe(key.id)
    expect(authenticate(`Bearer ${generateApiKey()}`, keys)).toBeUndefined()
  })

  test('never asks the store about a header that holds no well-formed key', () => {
    const asked: string[] = []
    const keys = { findActive: (hash: string) => void asked.push(hash) } as unknown as KeyStore
    for (const header of [null, 'Basic abc', 'Bearer', 'Bearer ask_short', `Bearer ${generateApiKey()}x`]) {
      expect(authenticate(header, keys)).toBeUndefined()
    }
    expect(asked).toEqual([])
  })
})

describe('refusalReason', () => {
  test.each([
    [null, 'Missing API key: send "Authorization: Bearer <key>"'],
    ['Basic abc', 'The Authorization header must be "Bearer <key>"'],
    ['Bearer not-a-key', 'The bearer token is not an Animal Store API key'],
    [`Bearer ${generateApiKey()}`, 'The API key is unknown or revoked'],
  ])('%p: %s', (header, reason) => {
    expect(refusalReason(header)).toBe(reason)
  })
})
