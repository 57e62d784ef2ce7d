/** A value a store may give at once (SQLite) or later (a networked database). */
export type Awaitable<T> = T | Promise<T>
