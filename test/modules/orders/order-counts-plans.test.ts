// A user's open orders and orders of the last minute, read by the trading gate on every order (decisions
// 501 and 1420), and a user's orders not final, read by cancel-all and a halt: each reads the orders it
// counts or answers, not every order the user ever placed. A bot's thousands of filled orders must not make
// each of its next orders slower.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createOrderQueries, orderCountsJoin } from '../../../src/modules/orders/order-queries.repository.ts';
import { genericPlan, planClient, rowsRead, rowsReadUnderGenericPlans } from '../../helpers/plans.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

/** Orders the user placed long ago, all final. */
const HISTORY = 5_000;
/** Other traders, each with resting limit orders, open: the platform's, not this user's. */
const OTHERS = 200;
const OTHERS_OPEN_EACH = 15;

describe("orders: a user's counts and open orders are read from those orders alone", () => {
  let t: TestApp;
  let userId: string;
  const now = new Date('2026-06-01T12:00:00Z');

  before(async () => {
    t = await buildTestApp();
    userId = (await signIn(t.app, t.database)).id;
    const order = (status: string, notFinal: boolean, createdAt: string) => sql`
      INSERT INTO orders (id, user_id, client_order_id, exchange, symbol, side, type, time_in_force, mode, amount,
        status, not_final, created_at, updated_at)
      SELECT gen_random_uuid(), ${userId}, 'tp-' || gen_random_uuid(), 'binance', 'BTC/USDT', 'buy', 'market', 'GTC',
        'paper', 0.001, ${status}, ${notFinal}, ${createdAt}::timestamptz - i * interval '1 minute',
        ${createdAt}::timestamptz - i * interval '1 minute'`;
    await t.database.db.execute(
      sql`${order('filled', false, '2026-05-01T00:00:00Z')} FROM generate_series(1, ${HISTORY}) AS i`,
    );
    // Two orders still open from the first days, and one filled in the last minute.
    await t.database.db.execute(sql`${order('open', true, '2026-01-01T00:00:00Z')} FROM generate_series(1, 2) AS i`);
    await t.database.db.execute(sql`${order('filled', false, '2026-06-01T11:59:40Z')} FROM generate_series(0, 0) AS i`);
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name)
      SELECT 'trader-' || i || '@counts.example', 'unusable', 'Other', 'Trader' FROM generate_series(1, ${OTHERS}) AS i`);
    await t.database.db.execute(sql`
      INSERT INTO orders (id, user_id, client_order_id, exchange, symbol, side, type, time_in_force, mode, amount,
        price, status, not_final, created_at, updated_at)
      SELECT gen_random_uuid(), u.id, 'tp-' || gen_random_uuid(), 'binance', 'BTC/USDT', 'buy', 'limit', 'GTC', 'live',
        0.001, 50000, 'open', true, timestamptz '2026-06-01T11:00:00Z' - i * interval '1 minute',
        timestamptz '2026-06-01T11:00:00Z' - i * interval '1 minute'
      FROM users u CROSS JOIN generate_series(1, ${OTHERS_OPEN_EACH}) AS i WHERE u.email LIKE '%@counts.example'`);
    await t.database.db.execute(sql`ANALYZE orders`);
  });
  after(() => t.close());

  it("the gate's counts: the open orders and the last minute's, reading those only", async () => {
    const counts = orderCountsJoin(new Date(now.getTime() - 60_000));
    // The join as the gate's statement holds it, after the gate's own `u` (trading.repository.ts).
    const query = `SELECT ${counts.columns} FROM (SELECT $1::uuid AS user_id) AS u ${counts.join}`;
    const params = [userId, ...counts.params];
    const { rows } = await planClient(t).query<Record<string, unknown>>(query, params);
    assert.deepEqual(counts.of(rows[0]!), { openOrders: 2, ordersLastMinute: 1 });
    // The gate's statement is named, so it runs under the one plan for any user (decision 401).
    const read = rowsRead(await genericPlan(t, query, params), 'orders');
    assert.ok(read < 50, `read ${read} orders to count 2 open and 1 recent`);
  });

  it("cancel-all's orders not final: the two open ones, reading those only", async () => {
    const read = await rowsReadUnderGenericPlans(t, 'orders', async (db) => {
      const open = await createOrderQueries(db).notFinalOf({ userId });
      assert.deepEqual(
        open.map((o) => o.status),
        ['open', 'open'],
      );
    });
    assert.ok(read < 50, `read ${read} orders to find 2 open`);
  });

  it('the reconcile pass and a platform halt: the orders not final of the platform, not every order placed', async () => {
    const notFinal = 2 + OTHERS * OTHERS_OPEN_EACH;
    const passRead = await rowsReadUnderGenericPlans(t, 'orders', (db) =>
      createOrderQueries(db).toReconcile('live', now, 10, now),
    );
    assert.ok(passRead <= notFinal + 20, `the pass read ${passRead} orders; ${notFinal} are not final`);
    const haltRead = await rowsReadUnderGenericPlans(t, 'orders', async (db) => {
      assert.equal((await createOrderQueries(db).notFinalAll()).length, notFinal);
    });
    assert.ok(haltRead <= notFinal, `the halt read ${haltRead} orders; ${notFinal} are not final`);
  });

  it("the user's list of one status: its page and its total read that status's orders, not the user's history", async () => {
    const read = await rowsReadUnderGenericPlans(t, 'orders', async (db) => {
      const page = await createOrderQueries(db).list({ userId, status: 'open', mode: 'paper' }, 50, 0);
      assert.equal(page.rows.length, 2);
      assert.equal(page.total, 2);
    });
    assert.ok(read < 50, `read ${read} orders to list 2 open of the user's ${HISTORY + 3}`);
  });
});
