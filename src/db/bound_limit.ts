/**
 * A `LIMIT` whose value is bound as `parameter` (`?2`, or `?`), written
 * `LIMIT +?2`. SQLite (3.54 in Bun) reads a bare `LIMIT ?2` as a value
 * the plan may use, and so expires the statement whenever that parameter is
 * bound: every run of it is prepared again first, which costs a page of 21
 * pets more than its rows do (bench/README.md, "A bound LIMIT"). The unary
 * plus leaves the value as it is and keeps it out of the plan.
 */
export function boundLimit(parameter: string): string {
  return `LIMIT +${parameter}`
}
