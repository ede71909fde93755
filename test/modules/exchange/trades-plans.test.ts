// What a user's trades cost to read by pair (decision 1370): the list of one pair, newest first, reads that
// pair's trades and no others, however many the user holds in other pairs; a sync's look at where one
// market of a credential ends reads that market's trades, not the table. Each statement is executed
// under EXPLAIN ANALYZE and the rows its scans of exchange_trades read are counted. A credential's
// deletion finds its balance syncs and transfers by index, not by reading every one (decision 1380).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { createTradesRepository } from '../../../src/modules/exchange/trades.repository.ts';
import { type PlanNode, plansOf, rowsRead, scansOf } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

/** The user's trades in each common pair, and in the rare one. */
const COMMON = 5_000;
const RARE = 5;

describe("a user's trades read by pair", () => {
  let t: TestApp;
  let userId: string;
  let credentialId: string;

  before(async () => {
    t = await buildTestApp();
    // Written as a bulk import writes them: four pairs of 5,000 trades, one of 5, over the last months.
    [{ id: userId }] = rowsOf<{ id: string }>(
      await t.database.db.execute(
        sql`INSERT INTO users (email, password_hash) VALUES ('pairs@example.com', 'unusable') RETURNING id`,
      ),
    ) as [{ id: string }];
    credentialId = await credential('main');
    await t.database.db.execute(sql`
      INSERT INTO exchange_trades (user_id, credential_id, exchange, exchange_trade_id, symbol, side, price, amount,
        total, fee, trade_timestamp)
      SELECT ${userId}, ${credentialId}, 'binance', p.pair || '-' || i, p.pair, 'buy', 1, 1, 1, 0,
        timestamptz '2026-06-01T00:00:00Z' + (i * 7 + p.k) * interval '1 minute'
      FROM unnest(ARRAY['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT', 'DOGE/USDT']) WITH ORDINALITY AS p(pair, k)
      CROSS JOIN LATERAL generate_series(1, CASE WHEN p.pair = 'DOGE/USDT' THEN ${RARE}::int ELSE ${COMMON}::int END) AS i`);
    await t.database.db.execute(sql`ANALYZE exchange_trades`);
  });
  after(() => t.close());

  /** A credential of the user, stored as a bulk import writes it (its sealed fields are never read here). */
  async function credential(name: string): Promise<string> {
    const [row] = rowsOf<{ id: string }>(
      await t.database.db.execute(sql`
        INSERT INTO exchange_credentials (user_id, exchange_name, credential_name, api_key_sealed, api_secret_sealed, api_key_masked)
        VALUES (${userId}, 'binance', ${name}, 'sealed', 'sealed', '****') RETURNING id`),
    );
    return row!.id;
  }

  for (const [name, symbol, expected] of [
    ['a rare pair', 'DOGEUSDT', RARE],
    ['a common pair', 'BTC/USDT', 100],
    ['a pair never traded', 'ADAUSDT', 0],
  ] as const) {
    it(`${name}: its page reads that pair's trades, not the user's others`, async () => {
      const [plan, ...others] = await plansOf(t, async (db) => {
        const page = await createTradesRepository(db).list(
          { userId, exchange: 'binance', symbol },
          { limit: 100, offset: 0 },
        );
        assert.equal(page.rows.length, expected);
        assert.ok(page.rows.every((row) => row.symbol.replace('/', '') === symbol.replace('/', '')));
      });
      const read = [plan!, ...others].reduce((sum, p) => sum + rowsRead(p, 'exchange_trades'), 0);
      assert.ok(read <= expected + 10, `read ${read} trades for a page of ${expected}`);
    });
  }

  it("a credential's deletion sets its syncs and transfers apart by index, not by reading them all", async () => {
    const db = t.database.db;
    // Another credential's 5,000 syncs and transfers, and this one's 3 of each.
    const other = await credential('other');
    const gone = await credential('gone');
    await db.execute(sql`
      INSERT INTO exchange_balance_syncs (user_id, exchange, credential_id, currencies_synced, synced_at)
      SELECT ${userId}, 'binance', CASE WHEN i <= 3 THEN ${gone}::uuid ELSE ${other}::uuid END, 4,
        now() - i * interval '1 minute'
      FROM generate_series(1, 5003) AS i`);
    await db.execute(sql`
      INSERT INTO exchange_transfers (user_id, exchange, credential_id, type, exchange_transfer_id, currency, amount,
        status, transfer_timestamp)
      SELECT ${userId}, 'binance', CASE WHEN i <= 3 THEN ${gone}::uuid ELSE ${other}::uuid END, 'deposit', 'd-' || i,
        'USDT', 1, 'ok', now() - i * interval '1 minute'
      FROM generate_series(1, 5003) AS i`);
    await db.execute(sql`ANALYZE exchange_balance_syncs, exchange_transfers`);

    // What the foreign keys' ON DELETE SET NULL runs, as its own statement (its plan is not shown in the
    // DELETE's): it must reach the credential's rows through an index.
    for (const table of ['exchange_balance_syncs', 'exchange_transfers']) {
      const [{ 'QUERY PLAN': explained }] = rowsOf<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        await db.execute(
          sql`EXPLAIN (FORMAT JSON) UPDATE ONLY ${sql.identifier(table)} SET credential_id = NULL WHERE credential_id = ${gone}`,
        ),
      ) as [{ 'QUERY PLAN': [{ Plan: PlanNode }] }];
      const scans = scansOf(explained[0].Plan, table);
      assert.ok(scans.length > 0, table);
      for (const scan of scans)
        assert.match(scan, new RegExp(`${table}_credential_idx$`), `${table}: ${scans.join('; ')}`);
    }

    await db.execute(sql`DELETE FROM exchange_credentials WHERE id = ${gone}`);
    const [left] = rowsOf<{ syncs: number; transfers: number }>(
      await db.execute(sql`SELECT
        (SELECT count(*)::int FROM exchange_balance_syncs WHERE credential_id IS NULL) AS syncs,
        (SELECT count(*)::int FROM exchange_transfers WHERE credential_id IS NULL) AS transfers`),
    );
    assert.deepEqual(left, { syncs: 3, transfers: 3 }, 'kept, set apart from the deleted credential');
  });

  it("where a credential's market ends: its own trades, not every trade", async () => {
    const plans = await plansOf(t, async (db) => {
      const newest = await createTradesRepository(db).newest(credentialId, 'DOGE/USDT');
      assert.equal(newest.idsAtNewest.length, 1);
    });
    const scans = plans.flatMap((plan) => scansOf(plan, 'exchange_trades'));
    assert.ok(scans.length > 0);
    for (const scan of scans) assert.match(scan, /exchange_trades_credential_market_idx$/, scans.join('; '));
    const read = plans.reduce((sum, p) => sum + rowsRead(p, 'exchange_trades'), 0);
    assert.ok(read <= 4 * RARE, `read ${read} trades for a market of ${RARE}`);
  });
});
