// The peer a user would write with Hono on Bun and bun:sqlite, the way
// Hono's documentation shows (middleware, and Zod through
// @hono/zod-validator): the same key check, limit, list and create as the
// Elysia peer.
//
//   DATABASE_PATH=pets.sqlite PEER_KEYS='{"ask_…":60}' bun bench/servers/peers/hono.ts
import { Database } from 'bun:sqlite'
import { zValidator } from '@hono/zod-validator'
import { Hono } from 'hono'
import { z } from 'zod'

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

const Status = z.enum(['available', 'pending', 'sold'])

const app = new Hono()

app.use('/v1/*', async (c, next) => {
  const key = c.req.header('authorization')?.slice('Bearer '.length)
  const limit = key === undefined ? undefined : keys.get(key)
  if (key === undefined || limit === undefined) return c.json({ message: 'Unknown API key' }, 401)
  const now = Date.now()
  const start = now - (now % 60_000)
  let window = windows.get(key)
  if (window === undefined || window.start !== start) {
    window = { start, count: 0 }
    windows.set(key, window)
  }
  window.count++
  c.header('x-ratelimit-limit', String(limit))
  c.header('x-ratelimit-remaining', String(Math.max(0, limit - window.count)))
  c.header('x-ratelimit-reset', String((start + 60_000) / 1000))
  if (window.count > limit) return c.json({ message: 'Rate limit exceeded' }, 429)
  await next()
})

app.get(
  '/v1/pets',
  zValidator(
    'query',
    z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      status: Status.optional(),
      after: z.coerce.number().int().min(0).default(0),
    }),
  ),
  (c) => {
    const { limit, status, after } = c.req.valid('query')
    return c.json(status === undefined ? list.all(after, limit) : listByStatus.all(status, after, limit))
  },
)

app.post(
  '/v1/pets',
  zValidator(
    'json',
    z.object({
      name: z.string().min(1).max(255),
      categoryId: z.number().int().min(1),
      status: Status.optional(),
    }),
  ),
  (c) => {
    const body = c.req.valid('json')
    const pet = insert.get(body.name, body.categoryId, body.status ?? 'available') as { id: number }
    c.header('location', `/v1/pets/${pet.id}`)
    return c.json(pet, 201)
  },
)

const server = Bun.serve({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', fetch: app.fetch })
console.log(`peer listening on ${server.port}`)
