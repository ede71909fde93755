// A paper order is stored, claimed, settled and brought to its state in one transaction (decision 270):
// every transition is still audited and published in order, and a failure inside that transaction,
// made by the database itself, leaves nothing behind: no order, no paper fill, no balance moved, no audit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { follow } from '../../helpers/sse-client.ts';
import { signIn } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('a paper order in one transaction', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
  });
  after(async () => {
    await o?.close();
  });

  const moves = async (userId: string, admin: { headers: Record<string, string> }) =>
    (
      (await o.inject('GET', `/api/admin/users/${userId}/activity?limit=100`, admin.headers)).json() as {
        action: string;
        details: { from?: string; to?: string };
      }[]
    )
      .filter((a) => a.action.startsWith('order.'))
      .map((a) => (a.action === 'order.transition' ? `${a.details.from}→${a.details.to}` : a.action))
      .reverse();

  it('audits and publishes each transition, in order, as when they were committed one by one', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const admin = await signIn(o.t.app, o.t.database, { role: 'admin' });
    const base = await o.t.app.listen({ host: '127.0.0.1', port: 0 });
    const stream = follow(`${base}/api/stream`, { headers: user.headers });
    let id: string;
    try {
      await stream.opened;
      const placed = await o.place(user, { mode: 'paper', amount: '0.01' });
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled');
      id = placed.json().id;
      const order = (e: { data: Record<string, unknown> }) => e.data.data as { id: string; status: string };
      await stream.waitFor((e) => e.type === 'order.updated' && order(e).id === id && order(e).status === 'filled');
      const seen = stream.events
        .filter((e) => e.type === 'order.updated' && order(e).id === id)
        .map((e) => order(e).status);
      assert.deepEqual(seen, ['pending', 'unknown', 'filled']);
    } finally {
      stream.close();
    }
    assert.deepEqual(await moves(user.id, admin), ['order.place', 'pending→unknown', 'unknown→filled']);
    const detail = (await o.inject('GET', `/api/orders/${id}`, user.headers)).json();
    assert.equal(detail.status, 'filled');
    assert.ok(detail.fills.length >= 1);
  });

  it('a refusal by the engine is stored as rejected, with the engine’s words, in the same transaction', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const admin = await signIn(o.t.app, o.t.database, { role: 'admin' });
    // The start balance is USDT only: there is no BTC to sell.
    const placed = await o.place(user, { mode: 'paper', side: 'sell', amount: '0.1' });
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'rejected');
    assert.match(placed.json().reason, /insufficient balance/);
    assert.deepEqual(await moves(user.id, admin), ['order.place', 'pending→unknown', 'unknown→rejected']);
  });

  it('rolls back whole when the database fails inside it: no order, no fill, no balance moved, no audit', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const admin = await signIn(o.t.app, o.t.database, { role: 'admin' });
    const account = async () => (await o.inject('GET', '/api/paper/account', user.headers)).json();
    const start = (await account()).balances;
    // The transaction's last statement writes its audit entries: the database refuses this user's.
    const db = o.t.database.db;
    await db.execute(
      sql.raw(`CREATE FUNCTION refuse_order_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.subject_user_id = '${user.id}' AND NEW.action LIKE 'order.%' THEN
            RAISE EXCEPTION 'refused for the test';
          END IF;
          RETURN NEW;
        END $$`),
    );
    await db.execute(
      sql.raw(`CREATE TRIGGER refuse_order_audit BEFORE INSERT ON audit_log
        FOR EACH ROW EXECUTE FUNCTION refuse_order_audit()`),
    );
    try {
      const failed = await o.place(user, { mode: 'paper', amount: '0.01' });
      assert.equal(failed.statusCode, 500, failed.body);
      assert.deepEqual(failed.json(), { detail: 'Internal Server Error' });
    } finally {
      await db.execute(sql.raw('DROP TRIGGER refuse_order_audit ON audit_log'));
      await db.execute(sql.raw('DROP FUNCTION refuse_order_audit()'));
    }
    assert.equal((await o.inject('GET', '/api/orders', user.headers)).json().total, 0);
    assert.deepEqual((await account()).balances, start);
    const paperRows = await o.t.database.rows<{ n: number }>(
      sql`SELECT (SELECT count(*) FROM paper_orders WHERE user_id = ${user.id}::uuid)::int
        + (SELECT count(*) FROM paper_fills f JOIN paper_orders p ON p.id = f.order_id
           WHERE p.user_id = ${user.id}::uuid)::int AS n`,
    );
    assert.equal(paperRows[0]!.n, 0);
    assert.deepEqual(await moves(user.id, admin), []);

    // Nothing was left half done: the next order goes through.
    const next = await o.place(user, { mode: 'paper', amount: '0.01' });
    assert.equal(next.statusCode, 201, next.body);
    assert.equal(next.json().status, 'filled');
    assert.equal((await o.inject('GET', '/api/orders', user.headers)).json().total, 1);
  });
  it('settles once for one Idempotency-Key asked at once: the later orders roll their settlement back', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const admin = await signIn(o.t.app, o.t.database, { role: 'admin' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => o.place(user, { mode: 'paper', amount: '0.01' }, 'one-paper-order')),
    );
    for (const answer of answers) assert.ok([200, 201].includes(answer.statusCode), answer.body);
    assert.equal(answers.filter((a) => a.statusCode === 201).length, 1);
    assert.equal(new Set(answers.map((a) => a.json().id)).size, 1);
    assert.equal((await o.inject('GET', '/api/orders', user.headers)).json().total, 1);
    const [engine] = await o.t.database.rows<{ orders: number; fills: number }>(
      sql`SELECT (SELECT count(*) FROM paper_orders WHERE user_id = ${user.id}::uuid)::int AS orders,
        (SELECT count(*) FROM paper_fills f JOIN paper_orders p ON p.id = f.order_id
          WHERE p.user_id = ${user.id}::uuid)::int AS fills`,
    );
    assert.equal(engine!.orders, 1);
    const detail = (await o.inject('GET', `/api/orders/${answers[0]!.json().id}`, user.headers)).json();
    assert.equal(engine!.fills, detail.fills.length);
    assert.deepEqual(await moves(user.id, admin), ['order.place', 'pending→unknown', 'unknown→filled']);
  });
});
