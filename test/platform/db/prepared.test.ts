// Named (prepared) statements (decision 192): on PostgreSQL each connection parses a statement once
// under a name made of its label and its text, and a statement answers as the same one unnamed does.
// PGlite ignores the name.
// test-runner: own process (it counts the statements its connections keep named, up to 256 each: in a shared
// process the files before it would have named statements on the same pool)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../../../src/platform/db/database.ts';
import { executePrepared } from '../../../src/platform/db/prepared.ts';
import { testDatabase } from '../../helpers/test-app.ts';
import { withoutPostgres } from '../../helpers/services.ts';

const NO_POSTGRES = withoutPostgres(
  'prepared statements are kept by PostgreSQL connections, which PGlite does not name',
);

describe('prepared statements', () => {
  let database: Database;
  before(async () => {
    database = await testDatabase();
  });
  after(() => database.close());

  const probe = (value: number, shape = '') => sql`SELECT ${value}::int * 2 AS doubled, ${shape}::text AS shape`;

  it('answers as the statement run unnamed, on either engine', async () => {
    for (const value of [1, 7, -3, 0, 1, 7, 2, 9]) {
      const named = rowsOf(await executePrepared(database.db, 'probe_answer', probe(value, 'a')));
      const plain = rowsOf(await database.db.execute(probe(value, 'a')));
      assert.deepEqual(named, plain);
      assert.deepEqual(named, [{ doubled: value * 2, shape: 'a' }]);
    }
  });

  it('runs within a transaction, on its connection', async () => {
    const answered = await database.db.transaction(async (tx) => {
      await tx.execute(sql`CREATE TEMP TABLE prepared_probe (v int) ON COMMIT DROP`);
      await tx.execute(sql`INSERT INTO prepared_probe VALUES (4), (5)`);
      return rowsOf<{ total: number }>(
        await executePrepared(tx, 'probe_tx', sql`SELECT sum(v)::int AS total FROM prepared_probe`),
      );
    });
    assert.deepEqual(answered, [{ total: 9 }]);
  });

  it('is parsed once per connection and planned once, under one name per statement text', {
    skip: NO_POSTGRES,
  }, async () => {
    const kept = await database.db.transaction(async (tx) => {
      for (const value of [1, 2, 3, 4, 5, 6, 7]) await executePrepared(tx, 'probe_kept', probe(value));
      // Another text under the same label (another filter, say) is another statement.
      await executePrepared(tx, 'probe_kept', sql.raw('SELECT 1 AS one'));
      return rowsOf<{ name: string; statement: string; generic: number; custom: number }>(
        await tx.execute(sql`SELECT name, statement, generic_plans::int AS generic, custom_plans::int AS custom
          FROM pg_prepared_statements WHERE name LIKE 'probe_kept_%'`),
      );
    });
    assert.equal(kept.length, 2, JSON.stringify(kept));
    for (const { name } of kept) assert.match(name, /^probe_kept_[0-9a-f]{16}$/);
    assert.notEqual(kept[0]!.name, kept[1]!.name);
    const one = kept.find((row) => row.statement === 'SELECT 1 AS one');
    const doubled = kept.find((row) => row.statement.includes('doubled'));
    assert.ok(one && doubled, JSON.stringify(kept));
    // Seven runs of one statement, all on the one plan made for any values.
    assert.deepEqual([doubled!.generic, doubled!.custom], [7, 0], JSON.stringify(doubled));
  });

  it('runs on connections that plan named statements once and never compile them', { skip: NO_POSTGRES }, async () => {
    // A plan made for any LIMIT is costed for a tenth of the table: with JIT on, such a plan of a
    // large table is compiled on every run (decision 192).
    const settings = rowsOf<{ plan: string; jit: string }>(
      await database.db.execute(sql`SELECT current_setting('plan_cache_mode') AS plan, current_setting('jit') AS jit`),
    );
    assert.deepEqual(settings, [{ plan: 'force_generic_plan', jit: 'off' }]);
  });

  it('names at most 256 statement texts, and runs any further ones unnamed', { skip: NO_POSTGRES }, async () => {
    const kept = await database.db.transaction(async (tx) => {
      for (let i = 0; i < 300; i += 1) {
        const answered = rowsOf(await executePrepared(tx, 'probe_many', sql.raw(`SELECT ${i} AS i`)));
        assert.deepEqual(answered, [{ i }]);
      }
      return rowsOf<{ n: number }>(
        await tx.execute(sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'probe_many_%'`),
      );
    });
    assert.ok(kept[0]!.n > 200 && kept[0]!.n <= 256, `prepared: ${kept[0]!.n}`);
  });
});
