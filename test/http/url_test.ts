import { describe, expect, test } from 'bun:test'
import { baseUrl, pathOf, pathStart } from '../../src/http/url'

describe('url parts', () => {
  test.each([
    ['http://localhost:3000/v1/pets?limit=2', 'http://localhost:3000', '/v1/pets'],
    ['http://x/v1', 'http://x', '/v1'],
    ['https://api.example.com/', 'https://api.example.com', '/'],
    ['http://x', 'http://x', '/'],
  ])('%s has the base %s and the path %s', (url, base, path) => {
    expect(baseUrl(undefined, url)).toBe(base)
    expect(pathOf(url)).toBe(path)
  })

  test('pathStart is the index of the first "/" after the host, or the length without one', () => {
    expect(pathStart('http://x/v1')).toBe(8)
    expect(pathStart('https://x:1/')).toBe(11)
    expect(pathStart('http://x')).toBe(8)
  })

  test('prefers the configured public URL', () => {
    expect(baseUrl('https://pets.example/api', 'http://10.0.0.1:3000/v1/pets')).toBe('https://pets.example/api')
  })
})
