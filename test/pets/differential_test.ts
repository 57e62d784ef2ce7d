import { expect, test } from 'bun:test'
import { describeEachStore, makeTestApp } from '../helpers'
import { driveAgainstModel } from './pet_model'

// The answers of the app, page cache and all, against a plain model of its pets: random interleavings of
// every operation, each answer's status, body, ETag and Link compared (test/pets/pet_model.ts).
// On a SQLite file too: there the reads of a turn share one snapshot on a connection of their own (db/turn_reads.ts).
describeEachStore(
  'pets that change, against a plain model',
  (kind) => {
    const seeds = kind === 'sqlite' ? [1, 2, 3, 4] : [1, 2]
    test.each(seeds)(
      "every answer of 3,000 random creates, updates, deletes, lists, gets and inventories is the model's (seed %p)",
      async (seed) => {
        const { call } = await makeTestApp()
        const report = await driveAgainstModel(
          (method, path, headers = {}, body) =>
            call(method, path, {
              headers:
                method === 'PATCH' && seed % 2 === 0
                  ? { 'content-type': 'application/merge-patch+json', ...headers }
                  : headers,
              body,
            }),
          { seed, steps: 3000 },
        )
        for (const operation of ['create', 'update', 'delete', 'get', 'inventory', 'list', 'list by Link'])
          expect({ operation, sent: (report.counts[operation] ?? 0) > 20 }).toEqual({ operation, sent: true })
      },
      60_000,
    )
  },
  { sqliteFile: true },
)
