import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const DOCUMENTS = ['README.md', 'docs/operations.md', 'docs/architecture.md', 'bench/README.md']

/** The targets of a Markdown document's links and images, without their #fragment. */
async function linkTargets(document: string): Promise<string[]> {
  const text = await Bun.file(join(ROOT, document)).text()
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!.replace(/#.*$/, '')).filter(Boolean)
}

describe("the repository's documents", () => {
  test.each(DOCUMENTS)('%s links only to files of the repository that exist, or to web addresses', async (document) => {
    for (const target of await linkTargets(document)) {
      if (/^https?:\/\//.test(target)) continue
      const path = join(ROOT, dirname(document), target)
      expect({ target, inside: !relative(ROOT, path).startsWith('..'), exists: existsSync(path) }).toEqual({
        target,
        inside: true,
        exists: true,
      })
    }
  })

  test('the README stays a front page of 160 lines at most', async () => {
    const lines = (await Bun.file(join(ROOT, 'README.md')).text()).split('\n').length
    expect(lines).toBeLessThanOrEqual(160)
  })
})
