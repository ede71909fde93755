// The admin list's trading figures cost the page, not the table (decisions 185, 194): for a page of
// users, read for given users or as a column of the users list's own statement, they read the balance
// rows of the users' latest snapshots and no others, however many older snapshots the table holds and
// however small the planner thinks it is. Every statement is executed under EXPLAIN ANALYZE and the
// balance rows its scans read are counted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../src/platform/db/database.ts';
import {
  createTradingSummaryRepository,
  tradingFiguresOf,
  type TradingFigures,
} from '../../../src/modules/exchange/trading-summary.repository.ts';
import { createAccountsRepository } from '../../../src/modules/users/accounts.repository.ts';
import { executedPlan, planClient, plansOf, rowsRead } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const USERS = 400;
const SNAPSHOTS = 5;
const CURRENCIES = ['BTC', 'ETH', 'USDT', 'SOL'];
const PAGE = 50;

describe('trading figures at scale', () => {
  let t: TestApp;
  let page: string[];

  before(async () => {
    t = await buildTestApp();
    // Written as a bulk import writes them. User i holds i + k of the k-th currency in its latest
    // snapshot (s = 0), and s more in each older one; one trade per three users.
    await t.database.rows(sql`
      INSERT INTO users (email, password_hash, created_at)
      SELECT 'holder-' || i || '@example.com', 'unusable', timestamptz '2026-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${USERS}) AS i`);
    await t.database.rows(sql`
      INSERT INTO exchange_balance_syncs (id, user_id, exchange, currencies_synced, synced_at)
      SELECT md5(u.id::text || s)::uuid, u.id, 'binance', ${CURRENCIES.length}, now() - s * interval '1 day'
      FROM users AS u CROSS JOIN generate_series(0, ${SNAPSHOTS - 1}) AS s WHERE u.email LIKE 'holder-%'`);
    await t.database.rows(sql`
      INSERT INTO exchange_balances (sync_id, user_id, exchange, currency, free, locked, total, sync_timestamp)
      SELECT md5(u.id::text || s)::uuid, u.id, 'binance', c.currency, 0, 0,
        split_part(u.name, '-', 2)::int + c.k + s * 0.5,
        now() - s * interval '1 day'
      FROM (SELECT id, split_part(email, '@', 1) AS name FROM users WHERE email LIKE 'holder-%') AS u
      CROSS JOIN generate_series(0, ${SNAPSHOTS - 1}) AS s
      CROSS JOIN unnest(ARRAY[${sql.join(
        CURRENCIES.map((c) => sql`${c}`),
        sql`, `,
      )}]) WITH ORDINALITY AS c(currency, k)`);
    await t.database.rows(sql`
      INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, total, fee, trade_timestamp)
      SELECT id, 'binance', 't-' || id, 'BTC/USDT', 'buy', 10, 0, now()
      FROM users WHERE email LIKE 'holder-%' AND split_part(split_part(email, '-', 2), '@', 1)::int % 3 = 0`);
    await t.database.rows(sql`ANALYZE users, exchange_balance_syncs, exchange_balances, exchange_trade_counts`);
    page = rowsOf<{ id: string }>(
      await t.database.db.execute(
        sql`SELECT id FROM users WHERE email LIKE 'holder-%' ORDER BY created_at DESC OFFSET 100 LIMIT ${PAGE}`,
      ),
    ).map((row) => row.id);
  });
  after(() => t.close());

  /** What user i holds (i + k of the k-th currency) and whether they traded, by id, as the figures give it. */
  async function expectedFigures(ids: readonly string[]): Promise<Map<string, TradingFigures>> {
    const numbers = rowsOf<{ id: string; n: number }>(
      await t.database.db.execute(
        sql`SELECT id, split_part(split_part(email, '-', 2), '@', 1)::int AS n FROM users WHERE id IN (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
      ),
    );
    return new Map(
      numbers.map(({ id, n }) => [
        id,
        {
          trades: n % 3 === 0 ? '1' : null,
          balances: CURRENCIES.map((currency, k) => [currency, String(n + k + 1)] as [string, string]).sort(),
        },
      ]),
    );
  }

  /** Amounts as numbers (the database writes `301.0`), a count of 0 as none: a user may have a kept count of 0. */
  const normal = (figures: TradingFigures | undefined) => ({
    trades: figures?.trades === '0' ? null : (figures?.trades ?? null),
    balances: figures?.balances?.map(([currency, amount]) => [currency, String(Number(amount))]) ?? null,
  });

  it("reads only the page's latest snapshots, and sums them right", async () => {
    let figures = new Map<string, TradingFigures>();
    const plans = await plansOf(t, async (db) => {
      figures = await createTradingSummaryRepository(db).figuresForUsers(page);
    });
    assert.equal(plans.length, 1, 'one statement');
    const read = rowsRead(plans[0]!, 'exchange_balances');
    assert.ok(read <= PAGE * CURRENCIES.length, `balance rows read: ${read}`);

    // Users 300 down to 251 (newest first, 100 skipped).
    const expected = await expectedFigures(page);
    assert.equal(figures.size, PAGE);
    for (const id of page) assert.deepEqual(normal(figures.get(id)), normal(expected.get(id)), id);
  });

  it("as a column of the users list, reads the page's snapshots only, in the list's one statement", async () => {
    let listed: Awaited<ReturnType<ReturnType<typeof createAccountsRepository>['list']>> | undefined;
    const plans = await plansOf(t, async (db) => {
      listed = await createAccountsRepository(db).list({ search: 'holder-' }, 100, PAGE, tradingFiguresOf);
    });
    assert.equal(plans.length, 1, 'one statement');
    const read = rowsRead(plans[0]!, 'exchange_balances');
    assert.ok(read <= PAGE * CURRENCIES.length, `balance rows read: ${read}`);
    assert.deepEqual(
      listed!.rows.map((row) => row.id),
      page,
    );
    const expected = await expectedFigures(page);
    assert.equal(listed!.annexes.length, PAGE);
    for (const [i, id] of page.entries()) {
      assert.deepEqual(normal(listed!.annexes[i] as TradingFigures), normal(expected.get(id)), id);
    }
  });

  it('a figure read over the whole table counts every row (the positive control)', async () => {
    const plan = await executedPlan(
      planClient(t),
      'SELECT currency, sum(total) FROM exchange_balances GROUP BY currency',
    );
    assert.equal(rowsRead(plan, 'exchange_balances'), USERS * SNAPSHOTS * CURRENCIES.length);
  });
});
