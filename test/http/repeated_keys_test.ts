import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { parseChecked } from '../../src/http/json_body'
import { duplicateKey, repeatsAKey } from '../../src/http/repeated_keys'
import { seededRandom } from '../helpers'

/** Bodies, each with the key it writes twice in one object (undefined: none). */
const BODIES: [string, string | undefined][] = [
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
  ['{"a":"\\\\","b":"\\\\\\"","a":3}', 'a'],
  ['[{"a":1},{"a":2}]', undefined],
  ['{"a":[],"b":{},"c":[{}]}', undefined],
  ['{"id":9007199254740993,"x":{"id":9007199254740993,"id":1}}', 'id'],
]

describe('duplicateKey', () => {
  test.each(BODIES)('%s -> %p', (text, expected) => {
    expect(duplicateKey(text)).toBe(expected as string | undefined)
  })
})

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
  test.each(BODIES)('%s: repeats a key when duplicateKey names one (%p)', (text, expected) => {
    expect(repeatsAKey(text, parseChecked(text))).toBe(expected !== undefined)
  })

  // In a process of its own with a time limit: a count that scans again from the top never returns, which no
  // test timeout can cut in this process, so the test fails instead of holding CI until its own limit.
  test('a quote left open (text that did not parse) ends the count instead of scanning again from the top', () => {
    const counted = Bun.spawnSync(
      [
        process.execPath,
        '-e',
        `import { repeatsAKey } from ${JSON.stringify(join(import.meta.dir, '../../src/http/repeated_keys.ts'))}
        console.log(JSON.stringify([repeatsAKey('{"a":"b\\\\"', { a: 'b' }), repeatsAKey('{"a":1,"', { a: 1 })]))`,
      ],
      { timeout: 4_000 },
    )
    expect(counted.exitCode).toBe(0)
    expect(JSON.parse(counted.stdout.toString())).toEqual([false, false])
  })

  test('2,000 random bodies, with escaped quotes and backslashes, inexact numbers and nesting: as duplicateKey finds', () => {
    const random = seededRandom(7)
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
