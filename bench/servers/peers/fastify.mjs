// The peer a user would write with Fastify on Node.js and better-sqlite3,
// the way Fastify's documentation shows (a hook, and JSON Schema on the
// routes): the same key check, limit, list and create as the Elysia peer.
//
//   DATABASE_PATH=pets.sqlite PEER_KEYS='{"ask_…":60}' node bench/servers/peers/fastify.mjs
import Database from 'better-sqlite3'
import Fastify from 'fastify'

const db = new Database(process.env.DATABASE_PATH)
db.pragma('journal_mode = WAL')
// The service's default durability (every commit synced; better-sqlite3 builds SQLite with NORMAL in WAL mode),
// so that creates compare like for like.
db.pragma('synchronous = FULL')
const keys = new Map(Object.entries(JSON.parse(process.env.PEER_KEYS ?? '{}')))
const windows = new Map()

const columns = 'id, name, category_id AS categoryId, status'
const list = db.prepare(`SELECT ${columns} FROM pets WHERE id > ? ORDER BY id LIMIT ?`)
const listByStatus = db.prepare(`SELECT ${columns} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`)
const insert = db.prepare(`INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${columns}`)

const status = { type: 'string', enum: ['available', 'pending', 'sold'] }
const pet = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, categoryId: { type: 'integer' }, status },
}

const app = Fastify({ logger: false })

app.addHook('onRequest', async (request, reply) => {
  const key = request.headers.authorization?.slice('Bearer '.length)
  const limit = key === undefined ? undefined : keys.get(key)
  if (key === undefined || limit === undefined) return reply.code(401).send({ message: 'Unknown API key' })
  const now = Date.now()
  const start = now - (now % 60_000)
  let window = windows.get(key)
  if (window === undefined || window.start !== start) {
    window = { start, count: 0 }
    windows.set(key, window)
  }
  window.count++
  reply.header('x-ratelimit-limit', String(limit))
  reply.header('x-ratelimit-remaining', String(Math.max(0, limit - window.count)))
  reply.header('x-ratelimit-reset', String((start + 60_000) / 1000))
  if (window.count > limit) return reply.code(429).send({ message: 'Rate limit exceeded' })
})

app.get(
  '/v1/pets',
  {
    schema: {
      querystring: {
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          status,
          after: { type: 'integer', minimum: 0, default: 0 },
        },
      },
      response: { 200: { type: 'array', items: pet } },
    },
  },
  async (request) => {
    const { limit, status, after } = request.query
    return status === undefined ? list.all(after, limit) : listByStatus.all(status, after, limit)
  },
)

app.post(
  '/v1/pets',
  {
    schema: {
      body: {
        type: 'object',
        required: ['name', 'categoryId'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 255 },
          categoryId: { type: 'integer', minimum: 1 },
          status,
        },
      },
      response: { 201: pet },
    },
  },
  async (request, reply) => {
    const { name, categoryId, status } = request.body
    const created = insert.get(name, categoryId, status ?? 'available')
    reply.header('location', `/v1/pets/${created.id}`).code(201)
    return created
  },
)

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })
console.log(`peer listening on ${app.server.address().port}`)
