import type { SQL } from 'bun'
import { EXPIRED_CLAIMS_PURGED_PER_CREATE, expiryCutoff, type IdempotencyClaim, type StoredClaim } from './idempotency'

/** Thrown inside a create's transaction to roll it back: another request holds its Idempotency-Key. */
export class ClaimTaken extends Error {}

/**
 * Takes `claim` inside the create's transaction `tx`, with the answer
 * (JSON) the create made: first drops an expired claim under the same key,
 * then inserts. When a concurrent transaction holds a live claim under that
 * key, PostgreSQL waits for it to end before deciding; when the key is
 * taken, throws ClaimTaken, so the create rolls back and `earlierClaim`
 * gives what to answer. A few expired claims are deleted on the way.
 */
export async function takeClaim(tx: SQL, claim: IdempotencyClaim, response: string): Promise<void> {
  const cutoff = expiryCutoff(claim)
  await tx`DELETE FROM idempotency_keys
           WHERE api_key_id = ${claim.apiKeyId} AND key = ${claim.key} AND created_at <= ${cutoff}`
  const claimed = await tx`
    INSERT INTO idempotency_keys (api_key_id, key, request_hash, response, created_at)
    VALUES (${claim.apiKeyId}, ${claim.key}, ${claim.requestHash}, ${response}, ${claim.now})
    ON CONFLICT (api_key_id, key) DO NOTHING RETURNING 1`
  if (claimed.length === 0) throw new ClaimTaken()
  await tx`DELETE FROM idempotency_keys WHERE ctid IN
           (SELECT ctid FROM idempotency_keys WHERE created_at <= ${cutoff}
            LIMIT ${EXPIRED_CLAIMS_PURGED_PER_CREATE})`
}

/** The live claim under `claim`'s key, as another request committed it; undefined when there is none. */
export async function earlierClaim(sql: SQL, claim: IdempotencyClaim): Promise<StoredClaim | undefined> {
  const [earlier]: StoredClaim[] = await sql`
    SELECT request_hash AS "requestHash", response FROM idempotency_keys
    WHERE api_key_id = ${claim.apiKeyId} AND key = ${claim.key} AND created_at > ${expiryCutoff(claim)}`
  return earlier
}
