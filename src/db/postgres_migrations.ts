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
  {
    version: 5,
    name: 'pet counts',
    // The inventory, kept by triggers in the transaction of every change to pets. Each status has 16
    // rows (a pet counts in row id % 16), so instances creating and changing pets at once do not all
    // wait for one row's lock; reading it sums 48 rows, however many pets there are. Writers to pets
    // (instances still on 1.1, in a rolling upgrade) wait for the lock until this commits, reads go on:
    // a write between the count and the triggers would be in neither.
    sql: `
      LOCK TABLE pets IN SHARE ROW EXCLUSIVE MODE;
      CREATE TABLE pet_counts (
        status text   NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
        shard  int    NOT NULL CHECK (shard BETWEEN 0 AND 15),
        count  bigint NOT NULL,
        PRIMARY KEY (status, shard)
      );
      INSERT INTO pet_counts (status, shard, count)
        SELECT s.status, g.shard, 0
        FROM (VALUES ('available'), ('pending'), ('sold')) AS s (status), generate_series(0, 15) AS g (shard);
      UPDATE pet_counts c SET count = t.count
        FROM (SELECT status, id % 16 AS shard, count(*) AS count FROM pets GROUP BY 1, 2) AS t
        WHERE c.status = t.status AND c.shard = t.shard;
      CREATE FUNCTION pet_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          UPDATE pet_counts SET count = count - 1 WHERE status = OLD.status AND shard = OLD.id % 16;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          UPDATE pet_counts SET count = count + 1 WHERE status = NEW.status AND shard = NEW.id % 16;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER pet_counts_insert_delete AFTER INSERT OR DELETE ON pets
        FOR EACH ROW EXECUTE FUNCTION pet_counts_follow();
      CREATE TRIGGER pet_counts_update AFTER UPDATE OF status ON pets
        FOR EACH ROW WHEN (OLD.status <> NEW.status) EXECUTE FUNCTION pet_counts_follow();
    `,
  },
  {
    version: 6,
    name: 'orders',
    // As SQLite's step 7: one placed order per pet at most (the stores decide under the pet's row lock; the
    // partial unique index refuses a second whatever they do); the pet stays while an order names it.
    sql: `
      CREATE TABLE orders (
        id         bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
        pet_id     bigint NOT NULL REFERENCES pets (id),
        owner_id   bigint NOT NULL,
        status     text   NOT NULL CHECK (status IN ('placed', 'delivered', 'cancelled')),
        placed_at  bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE UNIQUE INDEX orders_one_placed_per_pet ON orders (pet_id) WHERE status = 'placed';
      CREATE INDEX orders_pet ON orders (pet_id);
      CREATE INDEX orders_owner_id ON orders (owner_id, id);
      CREATE INDEX orders_owner_status_id ON orders (owner_id, status, id);
      CREATE INDEX orders_owner_pet_id ON orders (owner_id, pet_id, id);
    `,
  },
  {
    version: 7,
    name: 'pet counts in one order',
    // Step 5's trigger took a status change's two count rows in the order old, new: two changes in
    // opposite directions (available to pending, pending to available) of pets in one shard then
    // waited for each other, and PostgreSQL ended one with "deadlock detected" (a 500), found by the
    // scale-out bench's updates. Both rows are now taken in the order of their status.
    sql: `
      CREATE OR REPLACE FUNCTION pet_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NEW.status < OLD.status THEN
          UPDATE pet_counts SET count = count + 1 WHERE status = NEW.status AND shard = NEW.id % 16;
          UPDATE pet_counts SET count = count - 1 WHERE status = OLD.status AND shard = OLD.id % 16;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          UPDATE pet_counts SET count = count - 1 WHERE status = OLD.status AND shard = OLD.id % 16;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          UPDATE pet_counts SET count = count + 1 WHERE status = NEW.status AND shard = NEW.id % 16;
        END IF;
        RETURN NULL;
      END $$;
    `,
  },
]
