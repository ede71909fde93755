// Kept figures are declared once, in their module's figures.ts, and their routines generated from the
// declarations into the routines migration (decision 240). The migration holds what the declarations
// generate now (a hand edit or a forgotten db:generate fails here); no hand-written routine keeps a
// declared table; each table's columns are in the declaration's order. The generated triggers keep the
// figures exact under concurrent writers of every kind (insert, update, delete) on separate connections,
// write nothing for an update they do not see, and follow rows whatever changes, their ids included.
// test/platform/db/derived-figures.test.ts holds the random rounds and the readers' answers.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { DERIVED_FIGURES } from '../../../src/declarations.ts';
import type { Database } from '../../../src/platform/db/database.ts';
import { reconcileFigures } from '../../../src/platform/db/derived-figures.ts';
import { count, isKeptFigures, keptFigures, keptFiguresSql, sum } from '../../../src/platform/db/kept-figures.ts';
import { PROJECT_ROOT } from '../../../src/platform/project-root.ts';
import { testDatabase } from '../../helpers/test-app.ts';

const declared = DERIVED_FIGURES.filter(isKeptFigures);

/** Every hand-written routines file, as db:generate gathers them. */
function routinesFiles(): string[] {
  const platform = path.join(PROJECT_ROOT, 'src/platform/db');
  const modules = path.join(PROJECT_ROOT, 'src/modules');
  return [
    ...readdirSync(platform).map((name) => path.join(platform, name)),
    ...readdirSync(modules).flatMap((module) =>
      readdirSync(path.join(modules, module)).map((name) => path.join(modules, module, name)),
    ),
  ].filter((file) => file.endsWith('.routines.sql'));
}

describe('kept figures, declared once', () => {
  it('are what the routines migration holds, as the declarations generate them now (npm run db:generate)', () => {
    const migration = readFileSync(path.join(PROJECT_ROOT, 'drizzle/0001_routines.sql'), 'utf8');
    const generated = keptFiguresSql(DERIVED_FIGURES);
    assert.ok(declared.length >= 10, `the declarations were found (${declared.length})`);
    assert.equal(migration.split(generated).length - 1, 1, 'the generated routines appear once, unedited');
    for (const f of declared) {
      assert.equal(migration.split(`CREATE FUNCTION ${f.table}_follow()`).length - 1, 1, `${f.table} is kept once`);
    }
  });

  it('are written by no hand-written routine (which may still index them)', () => {
    const files = routinesFiles();
    assert.ok(files.length >= 3, `the routines files were found (${files.length})`);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const f of declared) {
        const writes = new RegExp(
          `(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE)\\s+${f.table}\\b|\\b${f.table}_(follow|recomputed|on_)`,
          'i',
        );
        assert.doesNotMatch(text, writes, `${path.basename(file)} writes ${f.table}`);
      }
    }
  });

  it('refuse a declaration whose rows could not say when a key has none', () => {
    const base = { table: 't', source: 's', key: { k: 'k' } };
    assert.throws(() => keptFigures({ ...base, figures: { total: sum('x') } }), /exactly one figure/);
    assert.throws(() => keptFigures({ ...base, figures: { a: count(), b: count() } }), /exactly one figure/);
    assert.throws(() => keptFigures({ ...base, key: { 'k; drop': 'k' }, figures: { n: count() } }), /plain name/);
    assert.deepEqual(keptFigures({ ...base, figures: { n: count(), big: count('x > 1') } }).key, ['k']);
  });
});

describe('kept figures in the database', () => {
  let database: Database;
  before(async () => {
    database = await testDatabase();
  });
  const differences = async () =>
    (await reconcileFigures(database.db, DERIVED_FIGURES, { mend: false })).filter(
      (d) => d.missing + d.extra + d.differing > 0,
    );
  const exec = (statement: ReturnType<typeof sql>) => database.db.transaction((tx) => tx.execute(statement));

  it("have the declaration's columns, key first, in the table's order", async () => {
    for (const f of declared) {
      const columns = await database.rows<{ name: string }>(sql`SELECT column_name AS name
        FROM information_schema.columns WHERE table_name = ${f.table} ORDER BY ordinal_position`);
      assert.deepEqual(
        columns.map((c) => c.name),
        [...Object.keys(f.declaration.key), ...Object.keys(f.declaration.figures)],
        f.table,
      );
    }
  });

  it('stay exact under concurrent inserts, updates and deletes on several connections', async () => {
    const [{ id: userId }] = await database.rows<{ id: string }>(sql`INSERT INTO users (email, password_hash)
      VALUES ('kept-trader@example.com', 'x') RETURNING id`);
    const writers = (round: number, w: number) => [
      sql`INSERT INTO users (email, password_hash, status, subscription_tier, created_at)
        SELECT 'kept-' || ${w} || '-' || ${round} || '-' || g || '@example.com', 'x',
          (ARRAY['active','suspended'])[1 + g % 2], (ARRAY['free','pro'])[1 + g % 2], now() - (g % 3) * interval '1 day'
        FROM generate_series(1, 25) AS g`,
      sql`UPDATE users SET status = CASE status WHEN 'active' THEN 'suspended' ELSE 'active' END
        WHERE email LIKE ${`kept-${w}-%`} AND random() < 0.3`,
      sql`DELETE FROM users WHERE email LIKE ${`kept-${w}-%`} AND random() < 0.1`,
      sql`INSERT INTO webhook_deliveries (provider, delivery_id, event, payload, status, received_at)
        SELECT (ARRAY['codehost','payments'])[1 + g % 2], ${`k${w}-${round}-`} || g, 'e', '{}'::jsonb,
          (ARRAY['processed','unmatched'])[1 + g % 2], now() - g * interval '20 minutes' FROM generate_series(1, 25) AS g`,
      sql`UPDATE webhook_deliveries SET status = 'failed'
        WHERE delivery_id LIKE ${`k${w}-%`} AND status = 'unmatched' AND random() < 0.3`,
      sql`INSERT INTO payments_ledger (external_id, amount, currency, occurred_at)
        SELECT ${`k${w}-${round}-`} || g, g * 1.25, (ARRAY['usd','EUR'])[1 + g % 2], now()
        FROM generate_series(1, 10) AS g`,
      sql`UPDATE payments_ledger SET amount = amount + 0.5 WHERE external_id LIKE ${`k${w}-%`} AND random() < 0.3`,
      sql`INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, total, fee,
          trade_timestamp, sync_status)
        SELECT ${userId}::uuid, 'binance', ${`k${w}-${round}-`} || g, 'BTC/USDT',
          (ARRAY['buy','sell'])[1 + g % 2], g, 0.01, timestamptz '2026-03-01' + g * interval '5 hours', 'synced'
        FROM generate_series(1, 20) AS g`,
      sql`UPDATE exchange_trades SET trade_timestamp = trade_timestamp + interval '7 hours'
        WHERE exchange_trade_id LIKE ${`k${w}-%`} AND random() < 0.2`,
      sql`DELETE FROM exchange_trades WHERE exchange_trade_id LIKE ${`k${w}-%`} AND random() < 0.1`,
    ];
    for (let round = 0; round < 4; round += 1) {
      // Each writer's statements in turn, the writers at once (on PostgreSQL, four connections of the
      // pool): each writes rows of its own, all of them the same figures.
      await Promise.all(
        [0, 1, 2, 3].map(async (w) => {
          for (const statement of writers(round, w)) await exec(statement);
        }),
      );
      assert.deepEqual(await differences(), [], `round ${round}`);
    }
  });

  it('write no figure for an update they do not see, and follow rows whose ids change', async () => {
    await exec(sql`INSERT INTO users (email, password_hash) SELECT 'unseen-' || g || '@example.com', 'x'
      FROM generate_series(1, 5) AS g`);
    const versions = () =>
      database.rows<{ v: string }>(sql`SELECT xmin::text || ctid::text AS v FROM user_counts
        UNION ALL SELECT xmin::text || ctid::text FROM user_day_counts ORDER BY 1`);
    const before = await versions();
    await exec(sql`UPDATE users SET last_login = now(), created_at = created_at + interval '1 microsecond'
      WHERE email LIKE 'unseen-%' AND (created_at AT TIME ZONE 'UTC')::time < '23:59'`);
    assert.deepEqual(await versions(), before, 'no count was written');
    // Rows that change their ids and what they are counted by at once, which a pairing by id would miscount.
    await exec(sql`INSERT INTO payments_ledger (external_id, amount, currency, occurred_at)
      SELECT 'moved-' || g, g, 'usd', now() FROM generate_series(1, 5) AS g`);
    await exec(sql`INSERT INTO webhook_deliveries (provider, delivery_id, event, payload, status)
      SELECT 'edge', 'moved-' || g, 'e', '{}'::jsonb, 'processed' FROM generate_series(1, 5) AS g`);
    await exec(sql`UPDATE payments_ledger SET id = gen_random_uuid(), currency = 'gbp'
      WHERE id IN (SELECT id FROM payments_ledger ORDER BY id LIMIT 3)`);
    await exec(sql`UPDATE webhook_deliveries SET id = gen_random_uuid(), status = 'superseded'
      WHERE id IN (SELECT id FROM webhook_deliveries ORDER BY id LIMIT 5)`);
    assert.deepEqual(await differences(), []);
    const [{ n }] = await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM payments_revenue
      WHERE currency = 'GBP'`);
    assert.equal(n, 1, 'the moved payments are counted under their new currency');
  });
});
