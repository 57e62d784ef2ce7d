/** A value a store may give at once (SQLite) or later (a networked database). */
export type Awaitable<T> = T | Promise<T>

/**
 * `next(value)`: at once when `value` is at hand, else once it resolves. A
 * promise comes out only where one went in, so an answer made at once
 * reaches Bun without one (docs/architecture.md, "Answers without a promise").
 */
export function andThen<T, U>(value: Awaitable<T>, next: (ready: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}
