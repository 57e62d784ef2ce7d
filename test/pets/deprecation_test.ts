import { describe, expect, test } from 'bun:test'
import { isGetPetUrl } from '../../src/pets/deprecation'

describe('isGetPetUrl', () => {
  test.each([
    ['http://localhost/v1/pets/1', true],
    ['http://localhost/v1/pets/abc?x=1', true],
    ['http://localhost:3000/v1/pets/42/', true],
    ['http://localhost/v1/pets', false],
    ['http://localhost/v1/pets/', false],
    ['http://localhost/v1/pets/1/owner', false],
    ['http://localhost/v1/petsx/1', false],
    ['http://localhost/?next=/v1/pets/1', false],
  ])('%s -> %p', (url, expected) => {
    expect(isGetPetUrl(url)).toBe(expected)
  })
})
