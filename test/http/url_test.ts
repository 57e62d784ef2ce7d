import { describe, expect, test } from 'bun:test'
import { baseUrl, isApiPath, isApiUrl, isChildPath, pathOf, pathStart } from '../../src/http/url'

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

describe('isApiPath', () => {
  test.each([
    ['/v1', true],
    ['/v1/', true],
    ['/v1/pets', true],
    ['/v10', false],
    ['/v1pets', false],
    ['/docs', false],
    ['/', false],
  ])('%s -> %p', (path, expected) => {
    expect(isApiPath(path)).toBe(expected)
    expect(isApiUrl(`http://localhost${path}`)).toBe(expected)
    expect(isApiUrl(`http://x${path}?q=/v1`)).toBe(expected)
  })
})

describe('isApiUrl', () => {
  test.each([
    ['http://localhost/v1?limit=1', true],
    ['http://localhost:3000/v1/pets?after=2', true],
    ['http://localhost/?next=/v1/pets', false],
    ['http://localhost/v1%2Fpets', false],
    ['http://localhost', false],
  ])('%s -> %p', (url, expected) => {
    expect(isApiUrl(url)).toBe(expected)
  })
})

describe('isChildPath', () => {
  test.each([
    ['http://localhost/v1/pets/1', true],
    ['http://localhost/v1/pets/abc?x=1', true],
    ['http://localhost:3000/v1/pets/42/', true],
    ['http://localhost/v1/pets', false],
    ['http://localhost/v1/pets/', false],
    ['http://localhost/v1/pets/1/owner', false],
    ['http://localhost/v1/petsx/1', false],
    ['http://localhost/?next=/v1/pets/1', false],
  ])('%s is a child of /v1/pets: %p', (url, expected) => {
    expect(isChildPath(url, '/v1/pets')).toBe(expected)
  })
})
