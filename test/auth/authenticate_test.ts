import { describe, expect, spyOn, test } from 'bun:test'
import { authenticate, refusalReason } from '../../src/auth/authenticate'
import {
  KNOWN_CREDENTIALS_CHARACTERS,
  KNOWN_CREDENTIALS_KEPT,
  KnownCredentials,
} from '../../src/auth/known_credentials'
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
    expect(authenticate(`Bearer ${secret}`, keys, new KnownCredentials())?.id).toBe(key.id)
    expect(authenticate(`Bearer ${generateApiKey()}`, keys, new KnownCredentials())).toBeUndefined()
  })

  test('never asks the store about a header that holds no well-formed key', () => {
    const asked: string[] = []
    const keys = { findActive: (hash: string) => void asked.push(hash) } as unknown as KeyStore
    for (const header of [null, 'Basic abc', 'Bearer', 'Bearer ask_short', `Bearer ${generateApiKey()}x`]) {
      expect(authenticate(header, keys, new KnownCredentials())).toBeUndefined()
    }
    expect(asked).toEqual([])
  })

  test('a header seen before is not hashed again, and its key is still asked of the store every time', async () => {
    const keys = new SqliteKeyStore(openDatabase(':memory:'))
    const { key, secret } = await issueKey(keys, UNLIMITED)
    const known = new KnownCredentials()
    const hashed = spyOn(Bun.SHA256, 'hash')
    try {
      expect(authenticate(`Bearer ${secret}`, keys, known)?.id).toBe(key.id)
      expect(authenticate(`Bearer ${secret}`, keys, known)?.id).toBe(key.id)
      expect(hashed).toHaveBeenCalledTimes(1)
      // Revoked: the remembered header names no active key any more.
      await keys.revoke(key.id)
      expect(authenticate(`Bearer ${secret}`, keys, known)).toBeUndefined()
    } finally {
      hashed.mockRestore()
    }
  })

  test('only headers that named an active key are remembered, and at most KNOWN_CREDENTIALS_KEPT of them', async () => {
    const keys = new SqliteKeyStore(openDatabase(':memory:'))
    const { secret } = await issueKey(keys, UNLIMITED)
    const known = new KnownCredentials()
    const hashed = spyOn(Bun.SHA256, 'hash')
    try {
      const stranger = `Bearer ${generateApiKey()}`
      authenticate(stranger, keys, known)
      authenticate(stranger, keys, known)
      expect(hashed).toHaveBeenCalledTimes(2)
      // Scheme words in every case and trailing spaces make as many distinct header values, each remembered.
      for (let i = 0; i <= KNOWN_CREDENTIALS_KEPT; i++) known.remember(`Bearer ${secret}${' '.repeat(i)}`, 'x')
      hashed.mockClear()
      authenticate(`Bearer ${secret}`, keys, known)
      expect(hashed).toHaveBeenCalledTimes(1)
    } finally {
      hashed.mockRestore()
    }
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

describe('KnownCredentials bounds what it remembers', () => {
  test('by characters as well as by values: padded values cannot fill memory', () => {
    const known = new KnownCredentials()
    // A valid key's header may be padded with spaces up to the header limit; each is remembered once it authenticates.
    const padded = (i: number) => `Bearer ${'ask_'.padEnd(47, String(i % 10))}${' '.repeat(4000)}`
    for (let i = 0; i < 1000; i++) known.remember(`${padded(i)}${' '.repeat(i)}`, `hash ${i}`)
    expect(known.size.characters).toBeLessThanOrEqual(KNOWN_CREDENTIALS_CHARACTERS)
    expect(known.size.values).toBeLessThan(1000)
    for (let i = 0; i < KNOWN_CREDENTIALS_KEPT + 10; i++) known.remember(`Bearer k${i}`, 'h')
    expect(known.size.values).toBeLessThanOrEqual(KNOWN_CREDENTIALS_KEPT)
  })
})
