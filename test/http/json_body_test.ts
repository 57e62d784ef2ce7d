import { describe, expect, test } from 'bun:test'
import { duplicateKey, isExactLiteral, isJsonMediaType } from '../../src/http/json_body'
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
  ])('%s -> %p', (text, expected) => {
    expect(duplicateKey(text)).toBe(expected as string | undefined)
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
