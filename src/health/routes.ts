import { Elysia } from 'elysia'
import type { Awaitable } from '../awaitable'
import { errorBody } from '../errors'

/** `GET /health`: 200 `{"status":"ok"}` while the database answers, else 503. Needs no key. */
export function healthRoutes({ databaseAnswers }: { databaseAnswers: () => Awaitable<boolean> }) {
  return new Elysia({ name: 'health' }).get(
    '/health',
    async ({ set }) => {
      let answers = false
      try {
        answers = await databaseAnswers()
      } catch {
        answers = false
      }
      if (answers) return { status: 'ok' }
      set.status = 503
      return errorBody(503, 'unavailable', 'The database does not answer')
    },
    { detail: { hide: true } },
  )
}
