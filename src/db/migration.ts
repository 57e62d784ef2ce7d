/** One schema change; `version` numbers are consecutive from 1 and never reused. */
export interface Migration {
  version: number
  name: string
  sql: string
}

/**
 * A database whose schema is newer than this build's migrations: written by
 * a newer Animal Store, so this one could misread it; it is never served.
 */
export class NewerSchemaError extends Error {
  override name = 'NewerSchemaError'
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database is at schema version ${found}, newer than this build's ${known}: a newer Animal Store wrote it; run that build, or restore a backup this one made`,
    )
  }
}

/** Throws NewerSchemaError when `found` is above the last of `migrations`. */
export function refuseNewerSchema(found: number, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0
  if (found > known) throw new NewerSchemaError(found, known)
}
