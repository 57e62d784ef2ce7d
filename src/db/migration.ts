/** One schema change; `version` numbers are consecutive from 1 and never reused. */
export interface Migration {
  version: number
  name: string
  sql: string
}
