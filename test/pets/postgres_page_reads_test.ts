import { describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { PostgresPageReads } from '../../src/pets/postgres_page_reads'
import { PostgresPetStore } from '../../src/pets/postgres_store'
import type { Pet, PetStatus } from '../../src/pets/schema'
import { cleanupsAfterEach, seededRandom } from '../helpers'
import { postgresPools, SHARED_STORES } from '../shared_services'

const cleanups = cleanupsAfterEach()

/** `sql`, counting the statements made through it. */
function counted(sql: SQL): { sql: SQL; statements: () => number } {
  let statements = 0
  const tag = (strings: TemplateStringsArray, ...values: unknown[]) => {
    statements++
    return sql(strings, ...values)
  }
  return { sql: tag as unknown as SQL, statements: () => statements }
}

/** A pool on a fresh schema holding `count` pets, ids 1 to `count`. */
async function poolWithPets(count: number): Promise<SQL> {
  const [sql] = await postgresPools(1, cleanups)
  await sql!`INSERT INTO pets (name, category_id, status)
    SELECT 'pet ' || i, 1 + i % 7, (ARRAY['available', 'pending', 'sold'])[i % 3 + 1] FROM generate_series(1, ${count}::int) AS i`
  return sql!
}

/** The page a read of its own gives: the pets after `after`, one more than `limit`. */
async function alone(sql: SQL, after: number, limit: number): Promise<Pet[]> {
  const rows: { id: string; name: string; category_id: string; status: PetStatus }[] =
    await sql`SELECT id, name, category_id, status FROM pets WHERE id > ${after} ORDER BY id LIMIT ${limit + 1}`
  return rows.map((r) => ({ id: Number(r.id), name: r.name, categoryId: Number(r.category_id), status: r.status }))
}

describe.skipIf(!SHARED_STORES)('PostgresPageReads', () => {
  test("a turn's reads, of any start and size, get what each would alone, in one statement", async () => {
    const sql = await poolWithPets(300)
    const { sql: countedSql, statements } = counted(sql)
    const reads = new PostgresPageReads(countedSql)
    const random = seededRandom(32)
    // Starts inside, at the edges, past the end and at the largest id; sizes from 1 to 100; one start asked twice.
    const asked = [
      { after: 0, limit: 1 },
      { after: 0, limit: 100 },
      { after: 299, limit: 20 },
      { after: 300, limit: 20 },
      { after: 5000, limit: 3 },
      { after: Number.MAX_SAFE_INTEGER, limit: 100 },
      { after: 150, limit: 20 },
      { after: 150, limit: 20 },
      ...Array.from({ length: 25 }, () => ({
        after: Math.floor(random() * 320),
        limit: 1 + Math.floor(random() * 100),
      })),
    ]
    const pages = await Promise.all(asked.map(({ after, limit }) => reads.read(after, limit)))
    expect(statements()).toBe(1)
    for (let i = 0; i < asked.length; i++) expect(pages[i]).toEqual(await alone(sql, asked[i]!.after, asked[i]!.limit))
    expect(pages[3]).toEqual([])
    expect(pages[0]!.map((p) => p.id)).toEqual([1, 2])
  })

  test('reads of later turns go out in statements of their own', async () => {
    const sql = await poolWithPets(10)
    const { sql: countedSql, statements } = counted(sql)
    const reads = new PostgresPageReads(countedSql)
    const first = await Promise.all([reads.read(0, 2), reads.read(4, 2)])
    const second = await reads.read(8, 2)
    expect(statements()).toBe(2)
    expect(first.map((page) => page.map((p) => p.id))).toEqual([
      [1, 2, 3],
      [5, 6, 7],
    ])
    expect(second.map((p) => p.id)).toEqual([9, 10])
  })

  test("a statement that fails fails every read of its turn, and the next turn's reads go out afresh", async () => {
    const sql = await poolWithPets(5)
    let failing = true
    const flaky = ((strings: TemplateStringsArray, ...values: unknown[]) => {
      if (failing) return Promise.reject(new Error('connection lost'))
      return sql(strings, ...values)
    }) as unknown as SQL
    const reads = new PostgresPageReads(flaky)
    const outcomes = await Promise.allSettled([reads.read(0, 1), reads.read(2, 1), reads.read(4, 1)])
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
    failing = false
    expect((await reads.read(2, 1)).map((p) => p.id)).toEqual([3, 4])
  })

  test('ids and categories up to 2^53 - 1 come back exact, read as doubles (postgres_rows.ts)', async () => {
    const [sql] = await postgresPools(1, cleanups)
    const large = [2 ** 31, 2 ** 32 + 1, 10 ** 15, 2 ** 53 - 3, 2 ** 53 - 2, 2 ** 53 - 1]
    for (const id of large)
      await sql!`INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
        VALUES (${id}, ${`pet ${id}`}, ${2 ** 53 - 1 - (id % 1000)}, 'sold')`
    const expected: Pet[] = large.map((id) => ({
      id,
      name: `pet ${id}`,
      categoryId: 2 ** 53 - 1 - (id % 1000),
      status: 'sold',
    }))
    const store = new PostgresPetStore(sql!)
    const [page, tail, filtered] = await Promise.all([
      store.list({ limit: 10 }),
      store.list({ limit: 2, after: 2 ** 53 - 3 }),
      store.list({ limit: 10, status: 'sold', after: 2 ** 32 }),
    ])
    expect(page).toEqual({ pets: expected, more: false })
    expect(page.pets).toEqual(await alone(sql!, 0, 10))
    expect(tail).toEqual({ pets: expected.slice(4), more: false })
    expect(filtered).toEqual({ pets: expected.slice(1), more: false })
    for (const pet of expected) expect(await store.get(pet.id)).toEqual(pet)
  })

  test('the store lists through them: a page and whether more follow, filtered walks apart', async () => {
    const sql = await poolWithPets(7)
    const store = new PostgresPetStore(sql)
    const [first, last, filtered] = await Promise.all([
      store.list({ limit: 3 }),
      store.list({ limit: 3, after: 4 }),
      store.list({ limit: 2, status: 'sold' }),
    ])
    expect(first).toEqual({ pets: (await alone(sql, 0, 3)).slice(0, 3), more: true })
    expect(last.pets.map((p) => p.id)).toEqual([5, 6, 7])
    expect(last.more).toBe(false)
    // i % 3 + 1 = 3 for ids 2, 5, ...: the sold ones.
    expect(filtered.pets.map((p) => [p.id, p.status])).toEqual([
      [2, 'sold'],
      [5, 'sold'],
    ])
  })
})
