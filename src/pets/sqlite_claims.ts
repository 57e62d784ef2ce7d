import type { Database, Statement } from 'bun:sqlite'
import { EXPIRED_CLAIMS_PURGED_PER_CREATE, expiryCutoff, type IdempotencyClaim, type StoredClaim } from './idempotency'

/**
 * The Idempotency-Key claims of one SQLite database, for the creates that
 * take one (createPet, placeOrder). Both calls run inside a write's
 * transaction (db/group_commit.ts), so a claim made earlier in the same
 * batch is seen.
 */
export class SqliteClaims {
  #find: Statement<StoredClaim, [number, string, number]>
  #save: Statement<null, [number, string, string, string, number]>
  #purge: Statement<null, [number]>

  constructor(db: Database) {
    this.#find = db.prepare(
      'SELECT request_hash AS requestHash, response FROM idempotency_keys WHERE api_key_id = ?1 AND key = ?2 AND created_at > ?3',
    )
    // An expired claim under the same key is replaced.
    this.#save = db.prepare(
      'INSERT OR REPLACE INTO idempotency_keys (api_key_id, key, request_hash, response, created_at) VALUES (?1, ?2, ?3, ?4, ?5)',
    )
    this.#purge = db.prepare(
      `DELETE FROM idempotency_keys WHERE rowid IN
       (SELECT rowid FROM idempotency_keys WHERE created_at <= ?1 LIMIT ${EXPIRED_CLAIMS_PURGED_PER_CREATE})`,
    )
  }

  /** The live claim under `claim`'s key, if another request made one. */
  find(claim: IdempotencyClaim): StoredClaim | undefined {
    return this.#find.get(claim.apiKeyId, claim.key, expiryCutoff(claim)) ?? undefined
  }

  /** Keeps `claim` with the answer (JSON) it made, and deletes a few expired claims. */
  save(claim: IdempotencyClaim, response: string): void {
    this.#save.run(claim.apiKeyId, claim.key, claim.requestHash, response, claim.now)
    this.#purge.run(expiryCutoff(claim))
  }
}
