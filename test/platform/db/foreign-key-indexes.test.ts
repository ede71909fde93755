// Every foreign key has an index that leads with its columns (decision 1490). Deleting or re-keying a row
// that others reference makes PostgreSQL look for those others: without such an index it reads the whole
// referencing table, once for every row deleted, inside the deleting transaction.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/platform/db/database.ts';
import { testDatabase } from '../../helpers/test-app.ts';

/** Foreign keys of the public schema with no index whose first columns are the key's, as "table (key)". */
const UNINDEXED = sql`
  SELECT c.conrelid::regclass::text AS "table", pg_get_constraintdef(c.oid) AS "key"
  FROM pg_constraint c
  JOIN pg_namespace n ON n.oid = c.connamespace
  WHERE c.contype = 'f'
    AND n.nspname = 'public'
    AND NOT EXISTS (
      SELECT 1 FROM pg_index i
      WHERE i.indrelid = c.conrelid
        AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
        AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey
    )
  ORDER BY 1, 2`;

async function unindexed(db: Database['db']): Promise<string[]> {
  const { rows } = (await db.execute(UNINDEXED)) as unknown as { rows: { table: string; key: string }[] };
  return rows.map((row) => `${row.table} ${row.key}`);
}

/** Runs `work` in a transaction that is always rolled back. */
async function rolledBack(database: Database, work: (db: Database['db']) => Promise<void>): Promise<void> {
  const undo = new Error('rolled back');
  await database.db
    .transaction(async (tx) => {
      await work(tx as unknown as Database['db']);
      throw undo;
    })
    .catch((error: unknown) => {
      if (error !== undo) throw error;
    });
}

describe('foreign keys and their indexes', () => {
  let database: Database;
  before(async () => {
    database = await testDatabase();
  });

  it('every foreign key of the schema has an index that leads with its columns', async () => {
    assert.deepEqual(await unindexed(database.db), []);
  });

  it('finds a foreign key without one, and no longer once an index leads with its columns', async () => {
    await rolledBack(database, async (db) => {
      await db.execute(sql`CREATE TABLE fk_probe (id uuid PRIMARY KEY, note text, user_id uuid REFERENCES users (id))`);
      assert.deepEqual(await unindexed(db), ['fk_probe FOREIGN KEY (user_id) REFERENCES users(id)']);
      // An index that only holds the key's column second does not serve the lookup.
      await db.execute(sql`CREATE INDEX fk_probe_note_user_idx ON fk_probe (note, user_id)`);
      assert.deepEqual(await unindexed(db), ['fk_probe FOREIGN KEY (user_id) REFERENCES users(id)']);
      await db.execute(sql`CREATE INDEX fk_probe_user_note_idx ON fk_probe (user_id, note)`);
      assert.deepEqual(await unindexed(db), []);
    });
  });
});
