import { afterEach, describe, expect, test } from 'bun:test'
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { mapWords } from '../../src/db/mapped_words'
import { tempDir } from '../helpers'

const opened: number[] = []
const workspaces: { cleanup(): void }[] = []
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd)
  for (const workspace of workspaces.splice(0)) workspace.cleanup()
})

/** A file of `words` 32-bit words (0, 1, 2, ...) and a read-only descriptor of it, closed after the test. */
function fileOfWords(words: number): { path: string; fd: number } {
  const workspace = tempDir('animal-store-mapped-words-')
  workspaces.push(workspace)
  const path = join(workspace.dir, 'words')
  writeFileSync(path, new Uint8Array(Uint32Array.from({ length: words }, (_, i) => i).buffer))
  const fd = openSync(path, 'r')
  opened.push(fd)
  return { path, fd }
}

describe.skipIf(process.platform !== 'linux')('mapWords', () => {
  test("maps a file's first words, and sees each later write to the file at once, with no read", () => {
    const { path, fd } = fileOfWords(12)
    const mapped = mapWords(fd, 12)
    expect(mapped).toBeDefined()
    expect(Array.from(mapped!.words)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    // Another descriptor writes word 4, as another process's SQLite writes the WAL-index header.
    const writer = openSync(path, 'r+')
    writeSync(writer, new Uint8Array(Uint32Array.of(4242).buffer), 0, 4, 4 * 4)
    closeSync(writer)
    expect(mapped!.words[4]).toBe(4242)
    expect(readFileSync(path).readUInt32LE(4 * 4)).toBe(4242)
    mapped!.unmap()
  })

  test('maps nothing from a file shorter than the words asked for', () => {
    const { fd } = fileOfWords(3)
    expect(mapWords(fd, 12)).toBeUndefined()
  })
})
