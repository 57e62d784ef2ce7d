// The peer a user would write in an afternoon with Elysia, TypeBox and
// bun:sqlite, the way Elysia's documentation shows: a bearer key checked
// against a map, a fixed-window limit per key with the three X-RateLimit-*
// headers, the list with limit/status/after, and a validated create.
//
//   DATABASE_PATH=pets.sqlite PEER_KEYS='{"ask_…":60}' bun bench/servers/peers/elysia.ts
import { Database } from 'bun:sqlite'
import { Elysia, t } from 'elysia'

const db = new Database(process.env.DATABASE_PATH)
db.exec('PRAGMA journal_mode = WAL')
// The service's default durability (every commit synced), so that creates compare like for like.
db.exec('PRAGMA synchronous = FULL')
const keys = new Map<string, number>(Object.entries(JSON.parse(process.env.PEER_KEYS ?? '{}')))
const windows = new Map<string, { start: number; count: number }>()

const columns = 'id, name, category_id AS categoryId, status'
const list = db.prepare(`SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ?`)
const listByStatus = db.prepare(`SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`)
const insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${columns}`)

// t.UnionEnum gives itself the first value as a default: an absent ?status would become "available".
const Status = t.UnionEnum(['available', 'pending', 'sold'], { default: undefined })

const app = new Elysia()
  .onBeforeHandle(({ headers, set, status }) => {
    const key = headers.authorization?.slice('Bearer '.length)
    const limit = key === undefined ? undefined : keys.get(key)
    if (key === undefined || limit === undefined) return status(401, { message: 'Unknown API key' })
    const now = Date.now()
    const start = now - (now % 60_000)
    let window = windows.get(key)
    if (window === undefined || window.start !== start) {
      window = { start, count: 0 }
      windows.set(key, window)
    }
    window.count++
    set.headers['x-ratelimit-limit'] = String(limit)
    set.headers['x-ratelimit-remaining'] = String(Math.max(0, limit - window.count))
    set.headers['x-ratelimit-reset'] = String((start + 60_000) / 1000)
    if (window.count > limit) return status(429, { message: 'Rate limit exceeded' })
  })
  .get(
    '/v1/pets',
    ({ query: { limit = 20, status, after = 0 } }) =>
      status === undefined ? list.all(after, limit) : listByStatus.all(status, after, limit),
    {
      query: t.Object({
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
        status: t.Optional(Status),
        after: t.Optional(t.Integer({ minimum: 0 })),
      }),
    },
  )
  .post(
    '/v1/pets',
    ({ body, set }) => {
      const pet = insert.get(body.name, body.categoryId, body.status ?? 'available') as { id: number }
      set.headers.location = `/v1/pets/${pet.id}`
      set.status = 201
      return pet
    },
    {
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 255 }),
        categoryId: t.Integer({ minimum: 1 }),
        status: t.Optional(Status),
      }),
    },
  )
  .listen({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' })

console.log(`peer listening on ${app.server?.port}`)
