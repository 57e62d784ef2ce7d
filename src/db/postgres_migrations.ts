import type { Migration } from './migration'

/**
 * The PostgreSQL schema, step by step; the same tables as SQLite's
 * `migrations`, in PostgreSQL's types. Append; never edit a shipped step.
 * Ids are BIGINT identities capped at 2^53 - 1, so every id is exact as a
 * JSON number.
 */
export const postgresMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'pets',
    sql: `
      CREATE TABLE pets (
        id          bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        name        text   NOT NULL,
        category_id bigint NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
        status      text   NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      );
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
  },
  {
    version: 2,
    name: 'api keys',
    // Every insert and update takes a new "changed" number, so the sum of the
    // column moves with every committed change: what instances poll for.
    sql: `
      CREATE SEQUENCE api_key_changes;
      CREATE TABLE api_keys (
        id         bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        hash       text   NOT NULL UNIQUE,
        name       text   NOT NULL,
        plan       text   NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        rpm        bigint NOT NULL CHECK (rpm > 0),
        rpd        bigint NOT NULL CHECK (rpd > 0),
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        changed    bigint NOT NULL DEFAULT nextval('api_key_changes')
      );
    `,
  },
  {
    version: 3,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE idempotency_keys (
        api_key_id   bigint NOT NULL,
        key          text   NOT NULL,
        request_hash text   NOT NULL,
        response     text   NOT NULL,
        created_at   bigint NOT NULL,
        PRIMARY KEY (api_key_id, key)
      );
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
  },
  {
    version: 4,
    name: 'key lifecycle',
    // quota_id NULL means the key's own id: a rolled key names the first key of its line.
    // last_used_at is written without a new "changed" number: it is no change instances need to see.
    sql: `
      ALTER TABLE api_keys
        ADD COLUMN access text NOT NULL DEFAULT 'read-write' CHECK (access IN ('read-write', 'read-only')),
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN last_used_at timestamptz,
        ADD COLUMN rolled_from bigint REFERENCES api_keys (id),
        ADD COLUMN quota_id bigint REFERENCES api_keys (id),
        ADD COLUMN quota_reset_at timestamptz;
    `,
  },
]
