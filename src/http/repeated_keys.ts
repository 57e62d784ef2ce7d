/**
 * A key written twice in one object of a JSON text, which JSON.parse would
 * silently keep the last of: found by counting, named only when there is one.
 */

const OPEN_OBJECT = 123 // {
const CLOSE_OBJECT = 125 // }
const OPEN_ARRAY = 91 // [
const CLOSE_ARRAY = 93 // ]
const QUOTE = 34 // "
const BACKSLASH = 92 // \
const COLON = 58 // :

/** JSON's white space: space, tab, line feed, carriage return. */
function isJsonBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}

/**
 * Whether an object of `text` (JSON that has already parsed to `value`)
 * writes a key twice: JSON.parse keeps one property a key, so `value` then
 * holds fewer properties than `text` writes keys. Counting both makes no
 * string and no set, where naming the key (`duplicateKey`) makes both: a
 * body with no key twice, nearly every one, is cleared without them
 * (bench/README.md, "A repeated key found by counting").
 */
export function repeatsAKey(text: string, value: unknown): boolean {
  return keysWritten(text) !== propertiesOf(value)
}

/**
 * How many keys `text` (JSON that has already parsed) writes: its strings
 * followed by a colon. A quote left open (text that did not parse) ends the
 * count rather than starting it again from the top.
 */
function keysWritten(text: string): number {
  let keys = 0
  for (let open = text.indexOf('"'); open !== -1; ) {
    let close = text.indexOf('"', open + 1)
    while (close !== -1 && isEscaped(text, close)) close = text.indexOf('"', close + 1)
    if (close === -1) break
    const next = afterBlanks(text, close + 1)
    if (text.charCodeAt(next) === COLON) keys++
    open = text.indexOf('"', next)
  }
  return keys
}

/** Where the first character of `text` from `at` that is not JSON's white space is. */
function afterBlanks(text: string, at: number): number {
  while (isJsonBlank(text.charCodeAt(at))) at++
  return at
}

/** Whether the character at `at` follows an odd number of backslashes, so that it is escaped. */
function isEscaped(text: string, at: number): boolean {
  let before = at - 1
  while (text.charCodeAt(before) === BACKSLASH) before--
  return (at - before) % 2 === 0
}

/**
 * How many properties the objects of a parsed body hold, at every depth:
 * JSON.parse's objects and arrays; anything else a reviver put in the value
 * (json_body's stand-in for an inexact number) holds none of the text's keys.
 */
function propertiesOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  let count = 0
  if (Array.isArray(value)) {
    for (const item of value) count += propertiesOf(item)
    return count
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return 0
  for (const key of Object.keys(value)) count += 1 + propertiesOf((value as Record<string, unknown>)[key])
  return count
}

/**
 * The first key that appears twice in one object of `text` (JSON that has
 * already parsed), compared as JSON.parse reads them (`"a"` and `"\\u0061"`
 * are the same key); undefined when there is none. One pass over the text;
 * a key is decoded by JSON.parse only when it holds an escape.
 */
export function duplicateKey(text: string): string | undefined {
  // The keys of each object open at this point; null for an array.
  const open: (Set<string> | null)[] = []
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i)
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      open.push(code === OPEN_OBJECT ? new Set() : null)
      i++
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop()
      i++
    } else if (code === QUOTE) {
      let escaped = false
      let end = i + 1
      for (let at = text.charCodeAt(end); at !== QUOTE; at = text.charCodeAt(end)) {
        if (at === BACKSLASH) {
          escaped = true
          end += 2
        } else end++
      }
      const start = i
      i = end + 1
      const keys = open[open.length - 1]
      if (text.charCodeAt(afterBlanks(text, i)) !== COLON || !keys) continue
      const key = escaped ? (JSON.parse(text.slice(start, end + 1)) as string) : text.slice(start + 1, end)
      if (keys.has(key)) return key
      keys.add(key)
    } else i++
  }
  return undefined
}
