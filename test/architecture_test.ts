import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Glob } from 'bun'

const ROOT = join(import.meta.dir, '..')
const SRC = join(ROOT, 'src')
const ARCHITECTURE = join(ROOT, 'docs', 'architecture.md')

/** One entry of the declared order: folders (`http/`) and files (`app.ts`), each an item of its own. */
type Entry = string[]

/**
 * The order of docs/architecture.md, section "Which module may import
 * which": its numbered list, top first; each line's paths in backticks
 * before the first colon are that entry's items.
 */
function declaredOrder(markdown: string): Entry[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Which module may import which'))
  if (section === undefined) throw new Error('docs/architecture.md has no section "Which module may import which"')
  return section
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => [...(line.split(':')[0] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] as string))
}

/** The item of `order` a file of src/ belongs to (its folder's, or its own), and that item's entry's index. */
function placeOf(file: string, order: Entry[]): { item: string; index: number } | undefined {
  const folder = file.includes('/') ? `${file.split('/')[0]}/` : file
  for (const [index, entry] of order.entries()) if (entry.includes(folder)) return { item: folder, index }
  return undefined
}

/**
 * Every module a file imports, type-only imports included (Bun's scanner
 * drops those, so they are made plain first; Biome's cycle rule counts them too).
 */
function importsOf(text: string): string[] {
  const plain = text
    .replace(/^import\s+type\s+/gm, 'import ')
    .replace(/^export\s+type\s+(?=[{*])/gm, 'export ')
    .replace(/^((?:import|export)\s*\{)([^}]*)\}/gm, (_, head: string, names: string) => {
      return `${head}${names.replace(/(^|,)(\s*)type\s+/g, '$1$2')}}`
    })
  return new Bun.Transpiler({ loader: 'ts', trimUnusedImports: false }).scanImports(plain).map(({ path }) => path)
}

/** An arrow from one file of src/ to another that does not run down the order. */
interface BadArrow {
  from: string
  to: string
  why: string
}

/** The arrows among `files` (path in src/ -> its text) that run up or across `order`, and the files it does not place. */
function checkImports(files: Map<string, string>, order: Entry[]): { bad: BadArrow[]; unplaced: string[] } {
  const bad: BadArrow[] = []
  const unplaced: string[] = []
  for (const [file, text] of files) {
    const from = placeOf(file, order)
    if (from === undefined) {
      unplaced.push(file)
      continue
    }
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith('.')) continue
      const target = relative(SRC, resolve(SRC, dirname(file), specifier))
      if (target.startsWith('..')) continue // package.json, read for the version
      const to = placeOf(`${target.replace(/\.ts$/, '')}.ts`, order)
      if (to === undefined) bad.push({ from: file, to: target, why: 'imports a file the order does not place' })
      else if (to.item === from.item) continue
      else if (to.index < from.index) bad.push({ from: file, to: target, why: `runs up, to ${to.item}` })
      else if (to.index === from.index) bad.push({ from: file, to: target, why: `runs across, to ${to.item}` })
    }
  }
  return { bad, unplaced }
}

async function sourceFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const file of new Glob('**/*.ts').scanSync(SRC)) {
    if (file.endsWith('.d.ts')) continue
    files.set(file, await Bun.file(join(SRC, file)).text())
  }
  return files
}

describe('the order of folders in docs/architecture.md', () => {
  test('every import in src/ runs down it, and it places every file', async () => {
    const order = declaredOrder(await Bun.file(ARCHITECTURE).text())
    expect(order.length).toBeGreaterThan(10)
    const { bad, unplaced } = checkImports(await sourceFiles(), order)
    expect(unplaced).toEqual([])
    expect(bad).toEqual([])
  })

  test('names only folders and files that exist in src/', async () => {
    for (const item of declaredOrder(await Bun.file(ARCHITECTURE).text()).flat())
      expect({ item, exists: existsSync(join(SRC, item)) }).toEqual({ item, exists: true })
  })

  test('the check finds an arrow that runs up, one that runs across, and type-only imports', () => {
    const order = [['app.ts'], ['pets/', 'http/'], ['log.ts']]
    const files = new Map([
      ['app.ts', "import { petRoutes } from './pets/routes'"],
      ['pets/routes.ts', "import type { Logger } from '../log'\nimport { type Callers, x } from '../http/callers'"],
      ['http/callers.ts', "import type { App } from '../app'"],
      ['log.ts', "export { helper } from './stray'"],
    ])
    expect(checkImports(files, order).bad).toEqual([
      { from: 'pets/routes.ts', to: 'http/callers', why: 'runs across, to http/' },
      { from: 'http/callers.ts', to: 'app', why: 'runs up, to app.ts' },
      { from: 'log.ts', to: 'stray', why: 'imports a file the order does not place' },
    ])
  })
})

describe('the files of src/', () => {
  test('none is over 300 lines: a longer one does several jobs', async () => {
    const long = [...(await sourceFiles())]
      .map(([file, text]) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
      .filter(({ lines }) => lines > 300)
    expect(long).toEqual([])
  })
})

describe('docs/architecture.md', () => {
  test('every path it names in backticks exists', async () => {
    const markdown = await Bun.file(ARCHITECTURE).text()
    const paths = [...markdown.matchAll(/`([a-z_][a-z_0-9/]*(?:\.ts|\/))`/g)].map((match) => match[1] as string)
    expect(paths.length).toBeGreaterThan(40)
    // A path is read from src/ ("http/cors.ts"), or from the root when it names a folder there ("test/e2e/").
    const missing = paths.filter((path) => !existsSync(join(SRC, path)) && !existsSync(join(ROOT, path)))
    expect(missing).toEqual([])
  })
})
