import type { Limits } from '../keys/plans'
import type { ApiKey } from '../keys/store'

/** A new key as `create` and `roll` print it with --json: the record and, this once, the secret. */
export function issuedKeyJson(key: ApiKey, secret: string) {
  return {
    id: key.id,
    key: secret,
    name: key.name,
    plan: key.plan,
    rpm: key.rpm,
    rpd: key.rpd,
    access: key.access,
    expiresAt: key.expiresAt,
  }
}

/** Limits in words: "60/min, 1000/day". */
export function describeLimits({ rpm, rpd }: Limits): string {
  return `${rpm}/min, ${rpd}/day`
}

/** A key's plan, limits, access and expiry in words, for the line a change prints. */
export function describeKey(key: ApiKey): string {
  const expiry = key.expiresAt === null ? 'never expires' : `expires at ${key.expiresAt}`
  return `${key.plan} plan (${describeLimits(key)}), ${key.access}, ${expiry}`
}

/** An ISO time to the minute, as the table shows it ("2026-11-23T14:05Z"); "-" for none. */
function minute(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 16)}Z`
}

/** Keys as `list` prints them: a header and a row each, columns aligned. */
export function keyTable(keys: ApiKey[]): string[] {
  const rows = [
    ['ID', 'NAME', 'PLAN', 'RPM', 'RPD', 'ACCESS', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED'],
    ...keys.map((k) => [
      String(k.id),
      k.name,
      k.plan,
      String(k.rpm),
      String(k.rpd),
      k.access,
      minute(k.createdAt),
      minute(k.expiresAt),
      minute(k.revokedAt),
      minute(k.lastUsedAt),
    ]),
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  )
}

/** One key as `show` prints it: a field per line, times in full. */
export function keyRecord(key: ApiKey): string[] {
  const fields: [string, string | number | null][] = [
    ['id', key.id],
    ['name', key.name],
    ['plan', key.plan],
    ['limits', describeLimits(key)],
    ['access', key.access],
    ['created', key.createdAt],
    ['expires', key.expiresAt ?? 'never'],
    ['revoked', key.revokedAt],
    ['last used', key.lastUsedAt === null ? 'never' : `${minute(key.lastUsedAt)} (to the minute)`],
    ['rolled from', key.rolledFrom],
    ['quota of key', key.quotaId],
    ['quota reset', key.quotaResetAt],
  ]
  return fields.map(([field, value]) => `${`${field}:`.padEnd(14)}${value ?? '-'}`)
}
