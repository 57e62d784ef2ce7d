import { describe, expect, test } from 'bun:test'
import { HttpError } from '../../src/http/errors'
import { isExactLiteral, isJsonMediaType, parseChecked } from '../../src/http/json_body'
import { duplicateKey, repeatsAKey } from '../../src/http/repeated_keys'
import { describeEachStore, expectError, json, makeTestApp } from '../helpers'

describe('isExactLiteral', () => {
  test.each([
    ['1', true],
    ['-0', true],
    ['9007199254740991', true],
    ['9007199254740992', true],
    ['9007199254740993', false],
    ['18446744073709551616', true],
    ['18446744073709551617', false],
    ['1.0', true],
    ['1e3', true],
    ['1E+3', true],
    ['12.50e1', true],
    ['0.0', true],
    ['1.0000000000000001', false],
    ['9007199254740990.6', false],
    ['1e-400', false],
    ['1.5', true],
  ])('%s -> %p', (source, expected) => {
    expect(isExactLiteral(source, JSON.parse(source))).toBe(expected)
  })
})

describe('isJsonMediaType', () => {
  test.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['APPLICATION/JSON', true],
    [' application/json ;x=y', true],
    ['application/jsonx', false],
    ['application/problem+json', false],
    ['text/json', false],
    ['', false],
  ])('%s -> %p', (value, expected) => {
    expect(isJsonMediaType(value)).toBe(expected)
  })

  test('is false without a Content-Type', () => {
    expect(isJsonMediaType(null)).toBe(false)
  })
})

describe('duplicateKey', () => {
  test.each([
    ['{"name":"a","categoryId":1}', undefined],
    ['{"name":"a","name":"b"}', 'name'],
    ['{"name":"a" , "n\\u0061me":"b"}', 'name'],
    ['{"a":{"x":1},"b":{"x":2}}', undefined],
    ['{"a":{"x":1,"x":2}}', 'x'],
    ['{"a":["x","x"],"b":"x"}', undefined],
    ['{"a":"\\"b\\":","b":1}', undefined],
    ['{"a\\"":1,"a\\"" :2}', 'a"'],
    ['{"a\\\\":1,"a\\\\":2}', 'a\\'],
    ['{ "x" :\t1,\n"y":{"x":[{"x":1}]},\r"x":2}', 'x'],
    ['{"\\u00e9":1,"é":2}', 'é'],
  ])('%s -> %p', (text, expected) => {
    expect(duplicateKey(text)).toBe(expected as string | undefined)
  })
})

/** Every body of the duplicateKey table: repeatsAKey must say of each what duplicateKey finds. */
const KEY_TABLE = [
  '{"name":"a","categoryId":1}',
  '{"name":"a","name":"b"}',
  '{"name":"a" , "n\\u0061me":"b"}',
  '{"a":{"x":1},"b":{"x":2}}',
  '{"a":{"x":1,"x":2}}',
  '{"a":["x","x"],"b":"x"}',
  '{"a":"\\"b\\":","b":1}',
  '{"a\\"":1,"a\\"" :2}',
  '{"a\\\\":1,"a\\\\":2}',
  '{ "x" :\t1,\n"y":{"x":[{"x":1}]},\r"x":2}',
  '{"\\u00e9":1,"é":2}',
  '{"a":"\\\\","b":"\\\\\\"","a":3}',
  '[{"a":1},{"a":2}]',
  '{"a":[],"b":{},"c":[{}]}',
  '{"id":9007199254740993,"x":{"id":9007199254740993,"id":1}}',
]

/** A random JSON text from a few keys and values, so that some objects write a key twice. */
function randomBody(random: () => number, depth = 0): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const keys = ['a', 'b', 'a\\"', '\\u0061', 'x:', '\\"', '\\\\']
  const value = (): string =>
    depth < 3 && random() < 0.3
      ? randomBody(random, depth + 1)
      : pick(['1', '"s"', '"\\\\"', '"q\\":"', '[1,"a"]', '[]', 'null', '1.5', '12345678901234567890'])
  const count = Math.floor(random() * 4)
  const parts = Array.from({ length: count }, () => `${pick(['', ' '])}"${pick(keys)}"${pick(['', ' '])}:${value()}`)
  return random() < 0.2 ? `[${parts.map((part) => `{${part}}`).join(',')}]` : `{${parts.join(',')}}`
}

describe('repeatsAKey', () => {
  test.each(KEY_TABLE)('%s: as duplicateKey finds', (text) => {
    expect(repeatsAKey(text, parseChecked(text))).toBe(duplicateKey(text) !== undefined)
  })

  test('2,000 random bodies, with escaped quotes and backslashes, inexact numbers and nesting: as duplicateKey finds', () => {
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    let repeated = 0
    for (let i = 0; i < 2000; i++) {
      const text = randomBody(random)
      const twice = duplicateKey(text) !== undefined
      if (twice) repeated++
      expect({ text, twice: repeatsAKey(text, parseChecked(text)) }).toEqual({ text, twice })
    }
    // The bodies must hold both kinds, or the comparison says nothing.
    expect(repeated).toBeGreaterThan(200)
    expect(repeated).toBeLessThan(1800)
  })
})

/** What parseChecked makes of `text`: its value, or the message of the 400 it throws. */
function outcome(text: string): unknown {
  try {
    return { value: parseChecked(text) }
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    return { refused: error.message }
  }
}

describe('parseChecked', () => {
  // Each body twice: as it is (no number a double may round, so parsed plainly and walked), and with a
  // property "v": 1.5 first (so parsed through the reviver). Both must meet the same first refusal.
  test.each([
    ['{"name":"Rex","categoryId":3}', undefined],
    ['{"name":"Rex","tags":[{"a":"x"}]}', undefined],
    ['{"__proto__":{"a":1},"name":"Rex"}', '"__proto__" is not an accepted property'],
    ['{"name":"Rex","toString":1}', '"toString" is not an accepted property'],
    ['{"deep":{"valueOf":"\\u0000"}}', '"valueOf" is not an accepted property'],
    ['{"a":{"b":"\\ud800"},"constructor":1}', '"b" must be well-formed Unicode: it contains a lone surrogate'],
    ['{"constructor":{"b":"\\ud800"}}', '"b" must be well-formed Unicode: it contains a lone surrogate'],
    ['{"list":["ok","x\\u0000y"]}', '"1" must not contain U+0000 (NUL)'],
    ['{"name":"a\\u0000","hasOwnProperty":2}', '"name" must not contain U+0000 (NUL)'],
  ])('%s -> %p, the same through the reviver', (text, refused) => {
    const plain = outcome(text)
    const revived = outcome(`{"v":1.5,${text.slice(1)}`)
    if (refused === undefined) {
      expect(plain).toEqual({ value: JSON.parse(text) })
      expect(revived).toEqual({ value: { v: 1.5, ...JSON.parse(text) } })
    } else {
      expect(plain).toEqual({ refused })
      expect(revived).toEqual({ refused })
    }
  })

  test.each(['{"id":9007199254740993}', '{"id":1.0000000000000001}', '{"id":1e-400}', '{"id":12345678901234567890}'])(
    '%s: a number a double rounds is not handed on as a number',
    (text) => {
      const { value } = outcome(text) as { value: { id: unknown } }
      expect(typeof value.id).not.toBe('number')
    },
  )

  test.each([
    ['{"id":999999999999999}', 999999999999999],
    ['{"id":-0}', -0],
    ['{"name":"v1.2e3","id":7}', 7],
    ['{"id":1e3}', 1000],
  ])('%s: an exact number is kept', (text, id) => {
    expect((outcome(text) as { value: { id: number } }).value.id).toBe(id)
  })
})

describeEachStore('bodies the parser refuses (issue 31)', () => {
  test('a property sent twice is 400 naming it, and nothing is created', async () => {
    const { call } = await makeTestApp()
    const twice = await call('POST', '/v1/pets', {
      body: '{"name":"Rex","name":"Max","categoryId":1}',
      headers: { 'content-type': 'application/json' },
    })
    const error = await expectError(twice, 400, 'invalid_request')
    expect(error).toMatchObject({
      message: '"name" appears twice in one object; send each property once',
      param: 'name',
    })
    expect(await json(await call('GET', '/v1/pets'))).toEqual([])
  })

  test('a compressed body is 415 naming Content-Encoding, not "not valid JSON"', async () => {
    const { call } = await makeTestApp()
    const body = Bun.gzipSync(new TextEncoder().encode('{"name":"Rex","categoryId":1}'))
    const response = await call('POST', '/v1/pets', {
      body: new TextDecoder('latin1').decode(body),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    })
    const error = await expectError(response, 415, 'unsupported_media_type')
    expect(error.param).toBe('Content-Encoding')
    expect(
      (
        await call('POST', '/v1/pets', {
          body: { name: 'Rex', categoryId: 1 },
          headers: { 'content-encoding': 'identity' },
        })
      ).status,
    ).toBe(201)
  })

  test.each(['\u200b\u200b', '\u2060', '\ufeff \u200d', '\u3164'])(
    'a name of only invisible blanks (%j) is refused as blank',
    async (name) => {
      const { call } = await makeTestApp()
      const error = await expectError(
        await call('POST', '/v1/pets', { body: { name, categoryId: 1 } }),
        400,
        'invalid_request',
      )
      expect(error.param).toBe('name')
      expect((await call('POST', '/v1/pets', { body: { name: `Rex${name}`, categoryId: 1 } })).status).toBe(201)
    },
  )
})
