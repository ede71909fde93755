// The database failing after the venue has a live order (decision 830): the request answers the order as
// it is stored (201), never an error that invites a resend, and what the failure left undone is the
// reconcile pass's: the venue's state brought in, an order left open under a halt canceled. The app's pool
// speaks to PostgreSQL through a loopback TCP proxy that refuses new connections and resets the open
// ones at the moment the Binance fake holds the order (or the halt's read goes out): a real outage.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { TcpProxy } from '../../fakes/tcp-proxy.ts';
import { cuttableTestDatabase, type CuttableDatabase } from '../../helpers/database-cut.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

const NO_POSTGRES = withoutPostgres(
  'the database is cut through a TCP proxy in front of a real server (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
);

describe('a live order whose database fails once the venue has it', { skip: NO_POSTGRES }, () => {
  let db: CuttableDatabase;
  let proxy: TcpProxy;
  let o: OrdersApp;

  before(async () => {
    db = await cuttableTestDatabase();
    proxy = db.proxy;
    o = await startOrdersApp({ app: { database: db.database } });
  });
  afterEach(() => db.restore());
  after(async () => {
    await o?.close();
    await db?.close();
  });

  const cut = () => db.cut();

  const warned = (msg: string, orderId: string) =>
    o.t.logLines().some((line) => line.level === 40 && line.msg === msg && line.orderId === orderId);

  function noSecretLogged(trader: Trader): void {
    const text = o.t.logText();
    assert.ok(!text.includes(trader.account.secret), 'the venue secret is not logged');
    assert.ok(!text.includes(trader.account.apiKey), 'the venue key is not logged');
  }

  const venueStatus = (trader: Trader) => o.book.of(trader.account.apiKey).map((v) => v.status);

  it('answers the stored order (201, unknown) when the answer cannot be stored; the pass brings it in', async () => {
    const trader = await o.trader();
    o.book.onNext('POST', cut);
    const placed = await o.place(trader, { type: 'limit', price: '60000' });
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'unknown', placed.body);
    assert.deepEqual(venueStatus(trader), ['NEW'], 'the venue has the order, once');
    assert.ok(
      warned(
        "the venue's answer to an order sent could not be stored: it stays unknown for the reconcile pass",
        order.id,
      ),
    );
    noSecretLogged(trader);

    await proxy.mode('pass');
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    const stored = (await o.inject('GET', `/api/orders/${order.id}`, trader.headers)).json();
    assert.equal(stored.status, 'open');
    assert.deepEqual(venueStatus(trader), ['NEW'], 'looked up, never sent again');
  });

  it("answers the stored order when the halt's read fails after the answer is stored; the pass cancels it", async () => {
    const trader = await o.trader();
    let halted = 0;
    // The user halts while the venue holds the order (stored `unknown`: the halt's cancel finds nothing at
    // the venue yet); the database goes away as the order's own check of the halt reads it.
    o.book.onNext('POST', async () => {
      halted = (await o.inject('POST', '/api/trading/halt', trader.headers, { reason: 'stop' })).statusCode;
      proxy.tap((chunk) => {
        if (!chunk.includes('trading_halts')) return;
        proxy.tap();
        void cut();
      });
    });
    const placed = await o.place(trader, { type: 'limit', price: '60000' });
    proxy.tap();
    assert.equal(halted, 200);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'open', placed.body);
    assert.ok(
      warned(
        'an order placed could not be checked against a halt: the reconcile pass closes it if one holds',
        order.id,
      ),
    );
    noSecretLogged(trader);

    await proxy.mode('pass');
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    const stored = (await o.inject('GET', `/api/orders/${order.id}`, trader.headers)).json();
    assert.equal(stored.status, 'canceled');
    assert.deepEqual(venueStatus(trader), ['CANCELED']);
  });

  // Decision 910: a cancel the venue carried out is answered as the venue left it, not with a 503 that
  // invites a second cancel; the pass stores it.
  it('answers a cancel as the venue left it (200, canceled) when the database fails after the venue canceled', async () => {
    const trader = await o.trader();
    const placed = await o.place(trader, { type: 'limit', price: '60000' });
    assert.equal(placed.json().status, 'open', placed.body);
    const order = placed.json();
    o.book.onNext('DELETE', cut);
    const canceled = await o.inject('DELETE', `/api/orders/${order.id}`, trader.headers);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled', canceled.body);
    assert.equal(canceled.json().id, order.id);
    assert.deepEqual(venueStatus(trader), ['CANCELED'], 'canceled at the venue, once');
    assert.ok(warned("the venue's answer to a cancel could not be stored: the reconcile pass stores it", order.id));
    noSecretLogged(trader);

    await proxy.mode('pass');
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    const stored = (await o.inject('GET', `/api/orders/${order.id}`, trader.headers)).json();
    assert.equal(stored.status, 'canceled');
    assert.deepEqual(venueStatus(trader), ['CANCELED']);
  });

  // Decision 911: a daily loss check that fails after the fill is stored is owed, and the next pass makes it.
  it("halts on the pass after a fill whose daily loss check met the database's failure", async () => {
    const trader = await o.trader();
    const limits = await o.inject('PUT', '/api/trading/limits', trader.headers, { daily_loss_limit: '5' });
    assert.equal(limits.statusCode, 200, limits.body);
    assert.equal((await o.place(trader, { amount: '0.01' })).json().status, 'filled');
    // The sell realizes a loss past the limit; the check's read of the day's fills meets its connection reset.
    let cutRead = false;
    proxy.tap((chunk, client) => {
      if (!chunk.includes('from "order_fills" inner join "orders"')) return;
      proxy.tap();
      cutRead = true;
      client.resetAndDestroy();
    });
    const symbol = o.binance.symbols.find((s) => s.symbol === 'BTCUSDT')!;
    const price = symbol.price;
    symbol.price = '64000.00';
    try {
      const sold = await o.place(trader, { side: 'sell', amount: '0.009' });
      assert.equal(sold.statusCode, 201, sold.body);
      assert.equal(sold.json().status, 'filled', sold.body);
    } finally {
      symbol.price = price;
      proxy.tap();
    }
    assert.ok(cutRead, "the check's read was cut");
    const status = async () => (await o.inject('GET', '/api/trading/status', trader.headers)).json();
    assert.equal((await status()).halted, false, 'the failed check halted nothing');

    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    const after = await status();
    assert.equal(after.halted, true, JSON.stringify(after));
    assert.match(after.reason, /daily_loss_limit 5/);
    assert.equal((await o.place(trader, {})).statusCode, 423);
  });

  it('refuses an order whose owed daily loss check fails before it, storing and sending nothing (decision 1030)', async () => {
    const trader = await o.trader();
    const limits = await o.inject('PUT', '/api/trading/limits', trader.headers, { daily_loss_limit: '1000' });
    assert.equal(limits.statusCode, 200, limits.body);
    // A check owed (as a process stopped after a fill leaves it): the next order makes it first.
    await o.t.database.rows(
      sql`INSERT INTO daily_loss_checks_owed (user_id, mode, since) VALUES (${trader.id}::uuid, 'live', now())`,
    );
    // The check's read of the day's fills meets the database going away.
    proxy.tap((chunk) => {
      if (!chunk.includes('xmin::text FROM "daily_loss_checks_owed"')) return;
      proxy.tap();
      void cut();
    });
    const refused = await o.place(trader, {});
    proxy.tap();
    assert.ok(refused.statusCode >= 500, `${refused.statusCode} ${refused.body}`);
    assert.equal(typeof refused.json().detail, 'string');
    assert.equal(o.book.of(trader.account.apiKey).length, 0, 'nothing reached the venue');
    await proxy.mode('pass');
    // The database answers again once the pool has replaced the connections the cut reset (a 503 until then).
    let stored = await o.inject('GET', '/api/orders', trader.headers);
    await waitFor(async () => {
      stored = await o.inject('GET', '/api/orders', trader.headers);
      return stored.statusCode !== 503;
    }, 'the database back');
    assert.equal(stored.statusCode, 200, stored.body);
    assert.equal(stored.json().total, 0, 'nothing stored');
    // Back, the next order makes the check (within the limit: no halt), settles it and is placed.
    const placed = await o.place(trader, {});
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'filled');
    const [owed] = await o.t.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM daily_loss_checks_owed WHERE user_id = ${trader.id}::uuid`,
    );
    assert.equal(owed!.n, 0, 'the check was made and settled');
  });

  it('cancel-all goes on past an order whose cancel the database failed', async () => {
    const trader = await o.trader();
    const ids: string[] = [];
    for (const price of ['60000', '60100', '60200']) {
      const placed = await o.place(trader, { type: 'limit', price });
      assert.equal(placed.json().status, 'open', placed.body);
      ids.push(placed.json().id);
    }
    // The first cancel's audit entry meets its connection reset (the server ended that session); the next
    // cancels take other connections.
    proxy.tap((chunk, client) => {
      if (!chunk.includes('order.cancel')) return;
      proxy.tap();
      client.resetAndDestroy();
    });
    const all = await o.inject('POST', '/api/orders/cancel-all', trader.headers, { mode: 'live' });
    proxy.tap();
    assert.equal(all.statusCode, 200, all.body);
    const body = all.json();
    assert.equal(body.count, 2, all.body);
    assert.deepEqual(body.canceled.map((c: { status: string }) => c.status).sort(), ['canceled', 'canceled']);
    assert.equal(body.failed.length, 1, all.body);
    assert.equal(body.failed[0].order.id, ids[0]);
    assert.equal(body.failed[0].order.status, 'open');
    assert.match(body.failed[0].detail, /could not be completed/);
    assert.deepEqual(venueStatus(trader), ['NEW', 'CANCELED', 'CANCELED']);
  });
});
