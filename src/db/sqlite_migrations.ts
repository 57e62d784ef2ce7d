import type { Migration } from './migration'

/** Every SQLite schema change, in order. Append; never edit a migration that has shipped. */
export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'pets',
    sql: `
      CREATE TABLE pets (
        id          INTEGER PRIMARY KEY,
        name        TEXT    NOT NULL,
        category_id INTEGER NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
        status      TEXT    NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      ) STRICT;
      CREATE INDEX pets_status_id ON pets (status, id);
    `,
  },
  {
    version: 2,
    name: 'api keys',
    sql: `
      CREATE TABLE api_keys (
        id         INTEGER PRIMARY KEY,
        hash       TEXT    NOT NULL UNIQUE,
        name       TEXT    NOT NULL,
        plan       TEXT    NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        rpm        INTEGER NOT NULL CHECK (rpm > 0),
        rpd        INTEGER NOT NULL CHECK (rpd > 0),
        created_at TEXT    NOT NULL,
        revoked_at TEXT
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE idempotency_keys (
        api_key_id   INTEGER NOT NULL,
        key          TEXT    NOT NULL,
        request_hash TEXT    NOT NULL,
        response     TEXT    NOT NULL,
        created_at   INTEGER NOT NULL,
        PRIMARY KEY (api_key_id, key)
      ) STRICT;
      CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
    `,
  },
  {
    version: 4,
    name: 'rate limiter state',
    sql: `
      CREATE TABLE limiter_state (
        id       INTEGER PRIMARY KEY CHECK (id = 1),
        saved_at INTEGER NOT NULL,
        day      INTEGER NOT NULL,
        counters BLOB    NOT NULL,
        extra    TEXT    NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 5,
    name: 'key lifecycle',
    // quota_id NULL means the key's own id: a rolled key names the first key of its line.
    sql: `
      ALTER TABLE api_keys ADD COLUMN access TEXT NOT NULL DEFAULT 'read-write' CHECK (access IN ('read-write', 'read-only'));
      ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
      ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
      ALTER TABLE api_keys ADD COLUMN rolled_from INTEGER REFERENCES api_keys (id);
      ALTER TABLE api_keys ADD COLUMN quota_id INTEGER REFERENCES api_keys (id);
      ALTER TABLE api_keys ADD COLUMN quota_reset_at TEXT;
    `,
  },
  {
    version: 6,
    name: 'pets that change',
    // Pets may now be changed and deleted (version 1.2). The table is rebuilt with AUTOINCREMENT, its ids kept:
    // without it SQLite gives a new row the highest id + 1, so deleting the newest pet would hand its id (its
    // URL) to the next one, which PostgreSQL's identity never does. The inventory is one row of counts per
    // status, filled once here and kept by triggers in the transaction of every change to pets, so it is exact
    // and reading it does not grow with the number of pets.
    sql: `
      CREATE TABLE pets_never_reused (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT    NOT NULL,
        category_id INTEGER NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
        status      TEXT    NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      ) STRICT;
      INSERT INTO pets_never_reused (id, name, category_id, status) SELECT id, name, category_id, status FROM pets;
      DROP TABLE pets;
      ALTER TABLE pets_never_reused RENAME TO pets;
      CREATE INDEX pets_status_id ON pets (status, id);
      CREATE TABLE pet_counts (
        status TEXT    PRIMARY KEY CHECK (status IN ('available', 'pending', 'sold')),
        count  INTEGER NOT NULL CHECK (count >= 0)
      ) STRICT;
      INSERT INTO pet_counts (status, count)
        SELECT value, (SELECT count(*) FROM pets WHERE status = value)
        FROM json_each('["available", "pending", "sold"]');
      CREATE TRIGGER pet_counts_insert AFTER INSERT ON pets BEGIN
        UPDATE pet_counts SET count = count + 1 WHERE status = NEW.status;
      END;
      CREATE TRIGGER pet_counts_delete AFTER DELETE ON pets BEGIN
        UPDATE pet_counts SET count = count - 1 WHERE status = OLD.status;
      END;
      CREATE TRIGGER pet_counts_update AFTER UPDATE OF status ON pets WHEN OLD.status <> NEW.status BEGIN
        UPDATE pet_counts SET count = count - 1 WHERE status = OLD.status;
        UPDATE pet_counts SET count = count + 1 WHERE status = NEW.status;
      END;
    `,
  },
  {
    version: 7,
    name: 'orders',
    // An order reserves one pet for the key line that placed it (owner_id: the first key of the line, as
    // quota_id names it). At most one order per pet is placed at a time: the stores decide inside the write
    // transaction, and the partial unique index refuses a second one whatever a store does. Times are
    // milliseconds since the epoch, as idempotency_keys keeps them. An order names its pet for good (a pet an
    // order names is never deleted), and its id, like a pet's, is never given again.
    sql: `
      CREATE TABLE orders (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        pet_id     INTEGER NOT NULL,
        owner_id   INTEGER NOT NULL,
        status     TEXT    NOT NULL CHECK (status IN ('placed', 'delivered', 'cancelled')),
        placed_at  INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX orders_one_placed_per_pet ON orders (pet_id) WHERE status = 'placed';
      CREATE INDEX orders_pet ON orders (pet_id);
      CREATE INDEX orders_owner_id ON orders (owner_id, id);
      CREATE INDEX orders_owner_status_id ON orders (owner_id, status, id);
      CREATE INDEX orders_owner_pet_id ON orders (owner_id, pet_id, id);
    `,
  },
  {
    version: 8,
    name: 'limiter state per process',
    // The in-memory limiter's snapshot, written in parts by each serving process under its own owner row, so
    // two processes on one file keep apart what they hold, and a start takes over (adopted_by) what stopped
    // ones left. An owner's parts of its last complete generation are its snapshot. The one row of version
    // 4 becomes a stopped owner, read back by the next start.
    sql: `
      CREATE TABLE limiter_owners (
        owner      TEXT    PRIMARY KEY,
        host       TEXT    NOT NULL,
        pid        INTEGER NOT NULL,
        generation INTEGER,
        seen_at    INTEGER NOT NULL,
        stopped    INTEGER NOT NULL DEFAULT 0 CHECK (stopped IN (0, 1)),
        adopted_by TEXT
      ) STRICT;
      CREATE TABLE limiter_parts (
        owner      TEXT    NOT NULL,
        generation INTEGER NOT NULL,
        part       INTEGER NOT NULL,
        day        INTEGER NOT NULL,
        counters   BLOB    NOT NULL,
        extra      TEXT    NOT NULL,
        PRIMARY KEY (owner, generation, part)
      ) STRICT;
      INSERT INTO limiter_owners (owner, host, pid, generation, seen_at, stopped)
        SELECT 'saved before version 8', '', 0, 0, saved_at, 1 FROM limiter_state;
      INSERT INTO limiter_parts (owner, generation, part, day, counters, extra)
        SELECT 'saved before version 8', 0, 0, day, counters, extra FROM limiter_state;
      DROP TABLE limiter_state;
    `,
  },
]
