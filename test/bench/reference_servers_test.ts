import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { seedDatabase } from '../../bench/lib/seed'
import { BenchServers } from '../../bench/lib/servers'
import { hasWrk } from '../../bench/lib/wrk'
import { floorApp, type RecordedAnswer } from '../../bench/servers/elysia_floor'
import { requireInCi } from '../e2e/system_commands'
import { tempDir } from '../helpers'
import { SHARED_STORES } from '../shared_services'

const WRK = requireInCi(hasWrk, 'run wrk (apt-get install wrk)')

const ROOT = join(import.meta.dir, '../..')

const recorded = (status: number, body: string): RecordedAnswer => ({
  status,
  headers: [
    ['content-type', 'application/json;charset=utf-8'],
    ['x-ratelimit-limit', '100'],
    ['x-ratelimit-remaining', '99'],
    ['x-request-id', 'recorded-1'],
  ],
  body: Buffer.from(body).toString('base64'),
})

// The references the bench measures the service against must answer what they claim to, or their rows mean nothing.
describe('the Elysia floor (bench/servers/elysia_floor.ts)', () => {
  test('answers every request with the recorded status, headers and body, with or without the shapes', async () => {
    const answer = recorded(429, '{"code":"rate_limited"}')
    for (const shapes of [new Set([]), new Set(['query', 'hooks', 'wrap'] as const)]) {
      const response = await floorApp(answer, shapes).handle(new Request('http://localhost/v1/pets?limit=20'))
      expect(response.status).toBe(429)
      expect(response.headers.get('x-ratelimit-remaining')).toBe('99')
      expect(response.headers.get('x-request-id')).toBe('recorded-1')
      expect(await response.text()).toBe('{"code":"rate_limited"}')
    }
  })
})

describe('raw Bun doing the store work (bench/servers/baseline_server.ts with BASELINE_PETS)', () => {
  test('reads the requested page, commits a created or changed pet before answering, and keeps the recorded headers', async () => {
    const { dir, cleanup } = tempDir('animal-store-baseline-')
    const servers = new BenchServers(ROOT, dir)
    try {
      const pets = join(dir, 'pets.sqlite')
      await seedDatabase(pets, 100)
      const running = await servers.baseline(recorded(200, '[]'), pets)

      const page = await fetch(`${running.url}/v1/pets?limit=3&after=40`)
      expect(page.status).toBe(200)
      expect(page.headers.get('x-ratelimit-limit')).toBe('100')
      expect(((await page.json()) as { id: number }[]).map((pet) => pet.id)).toEqual([41, 42, 43])
      const sold = (await (await fetch(`${running.url}/v1/pets?status=sold&limit=2`)).json()) as { status: string }[]
      expect(sold.map((pet) => pet.status)).toEqual(['sold', 'sold'])

      const creates = await Promise.all(
        ['Rex', 'Tom', 'Kit'].map((name) =>
          fetch(`${running.url}/v1/pets`, { method: 'POST', body: JSON.stringify({ name, categoryId: 2 }) }),
        ),
      )
      const created = (await Promise.all(creates.map((response) => response.json()))) as { id: number; name: string }[]
      expect(created.map((pet) => pet.name)).toEqual(['Rex', 'Tom', 'Kit'])
      // Answered after the commit: another connection to the file sees every created pet.
      const reader = new Database(pets, { readonly: true })
      const stored = reader.query('SELECT id, name FROM pets WHERE id > 100 ORDER BY id').all()
      reader.close()
      expect(stored).toEqual(created.map(({ id, name }) => ({ id, name })))

      // A PATCH writes only the fields it names, and is answered once committed.
      const changed = await fetch(`${running.url}/v1/pets/7`, { method: 'PATCH', body: '{"status":"sold"}' })
      expect(await changed.json()).toEqual({ id: 7, name: 'pet 7', categoryId: 8, status: 'sold' })
      const again = new Database(pets, { readonly: true })
      expect(again.query('SELECT status FROM pets WHERE id = 7').get()).toEqual({ status: 'sold' })
      again.close()
    } finally {
      await servers.stopAll()
      cleanup()
    }
  }, 60_000)
})

/** Runs a bench script as a short run (one round of 50 calls, 500 pets); it must exit 0 with nothing on stderr. */
async function shortRun(
  script: string,
  options = ['--rounds', '1', '--iterations', '50', '--pets', '500'],
): Promise<string> {
  const run = Bun.spawn([process.execPath, join(ROOT, script), ...options], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [output, errors, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  expect({ code, errors: code === 0 ? '' : errors }).toEqual({ code: 0, errors: '' })
  return output
}

describe('the in-process stage costs (bench/probes/stage_costs.ts)', () => {
  test('measures every stage of the three scenarios as a short run', async () => {
    const output = await shortRun('bench/probes/stage_costs.ts')
    for (const scenario of ['hot list', 'cold list', '429 path']) expect(output).toContain(`\n${scenario}\n`)
    expect(output.match(/\| whole request \(app\.handle\) \| \d/g)).toHaveLength(3)
    expect(output).toContain('| page store (SQLite read) |')
    // The wrap's steps: their headers written before the Response is made, and the log line, in every scenario.
    for (const step of ["the wrap's headers written before", 'request-log line'])
      expect(output.match(new RegExp(`\\| \\+ ${step} .*\\| \\d`, 'g'))).toHaveLength(3)
  }, 60_000)
})

describe('the page built in SQLite (bench/probes/page_in_sqlite.ts)', () => {
  test('gives the same bytes as the service on random pages, then times both, as a short run', async () => {
    const output = await shortRun('bench/probes/page_in_sqlite.ts')
    expect(output).toMatch(/\n {2}rows {5}\d+\.\d\d \[/)
    expect(output).toMatch(/\n {2}in SQL {3}\d+\.\d\d \[/)
  }, 60_000)
})

describe('the bound LIMIT (bench/probes/bound_limit.ts)', () => {
  test('reads the same rows with every LIMIT, then times them and a prepare, as a short run', async () => {
    const output = await shortRun('bench/probes/bound_limit.ts')
    for (const name of ['LIMIT \\+\\?2 \\(the service\\)', 'LIMIT \\?2 \\(bare\\)', 'preparing the statement alone'])
      expect(output).toMatch(new RegExp(`\\n {2}${name} +\\d+\\.\\d\\d \\[`))
  }, 60_000)
})

describe('the upgrade cost (bench/probes/upgrade_cost.ts)', () => {
  test('upgrades a 1.1 database (and PostgreSQL when the tests have one), checks its counts, and times it, as a short run', async () => {
    const output = await shortRun('bench/probes/upgrade_cost.ts', ['--rounds', '1', '--pets', '500'])
    expect(output).toMatch(/\n {2}SQLite: {5}\d+ \[/)
    if (process.env.TEST_DATABASE_URL) expect(output).toMatch(/\n {2}PostgreSQL: \d+ \[/)
  }, 60_000)
})

describe.skipIf(!SHARED_STORES)('the placement cost (bench/probes/placement_cost.ts)', () => {
  test('reserves pets both ways on PostgreSQL, uncontended and contended, exactly once, as a short run', async () => {
    const output = await shortRun('bench/probes/placement_cost.ts', [
      '--rounds',
      '1',
      '--clients',
      '4',
      '--attempts',
      '10',
    ])
    expect(output).toMatch(/^uncontended .*locked \/ conditional \d+\.\d\d \[.*exactly once held$/m)
    expect(output).toMatch(/^contended .*locked \/ conditional \d+\.\d\d \[.*exactly once held$/m)
  }, 60_000)
})

describe.skipIf(!SHARED_STORES)('the page reads on PostgreSQL (bench/probes/page_reads.ts)', () => {
  test('reads pages a statement each and a turn in one statement, every page whole, as a short run', async () => {
    const output = await shortRun('bench/probes/page_reads.ts', ['--rounds', '1', '--pages', '200', '--pets', '2000'])
    for (const way of ['a statement each', 'one statement a turn'])
      expect(output).toMatch(new RegExp(`\\n {2}${way} +Bun \\d+\\.\\d \\[.*\\] +PostgreSQL \\d+\\.\\d \\[`))
  }, 60_000)
})

describe('three processes on one core (bench/probes/sharing_one_core.ts)', () => {
  test.skipIf(!WRK)(
    'drives the service and raw Bun, one process and three, and gives three over one, as a short run',
    async () => {
      const output = await shortRun('bench/probes/sharing_one_core.ts', ['--rounds', '1', '--seconds', '1'])
      for (const setup of ['service, 1 process', 'service, 3 processes', 'raw Bun, 1 process', 'raw Bun, 3 processes'])
        expect(output).toMatch(new RegExp(`\\n {2}${setup} +\\d+\\.\\d \\[`))
      expect(output).toMatch(/Three over one, round by round: service \d+\.\d\d \[/)
    },
    120_000,
  )
})
