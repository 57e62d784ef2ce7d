import { describe, expect, test } from 'bun:test'
import { HttpError } from '../../src/http/errors'
import { isExactLiteral, isJsonMediaType, parseChecked } from '../../src/http/json_body'
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
