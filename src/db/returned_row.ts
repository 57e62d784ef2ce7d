/** The row an `INSERT … RETURNING` gave. Its absence is a bug in the statement, never the client's fault. */
export function returnedRow<T>(row: T | null | undefined): T {
  if (row === undefined || row === null) throw new Error('INSERT … RETURNING gave no row')
  return row
}
