// A halt's own cancel-all runs as cancel-all does (decisions 913, 1031): a few cancels at a time, none started
// after twice the venue timeout (those left for the reconcile pass, which cancels what a halt left open,
// decision 830), none sent twice. The cancels may reach the venue in any order: nothing here assumes which
// one arrives first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

const TIMEOUT_MS = 1500;

describe("a halt's cancels against the Binance fake", () => {
  let o: OrdersApp;
  before(async () => {
    // The listener's bound well past the cancels: the halt answers what its cancels did.
    o = await startOrdersApp({
      env: { EXCHANGE_TIMEOUT_MS: String(TIMEOUT_MS) },
      app: { modules: { haltListenerTimeoutMs: 60_000 } },
    });
  });
  after(async () => {
    await o?.close();
  });

  async function resting(trader: Trader, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const placed = await o.place(trader, { type: 'limit', price: String(60_000 + i * 10) });
      assert.equal(placed.json().status, 'open', placed.body);
      ids.push(placed.json().id);
    }
    return ids;
  }

  /** The client order ids of the cancels the venue received for the trader, in the order they came. */
  const cancelsAsked = (trader: Trader) =>
    o.binance.requests
      .filter(
        (r) =>
          r.method === 'DELETE' && r.path === '/api/v3/order' && r.headers['x-mbx-apikey'] === trader.account.apiKey,
      )
      .map((r) => r.params.get('origClientOrderId'));

  const venue = (trader: Trader) => o.book.of(trader.account.apiKey).map((v) => v.status);

  it('answers within a bounded time on a venue that hangs, asks each order at most once; the pass cancels the rest', async () => {
    const trader = await o.trader({ USDT: '1000000', BTC: '10' });
    const ids = await resting(trader, 12);
    // Every order request hangs until released: the venue neither cancels nor answers.
    const hung = o.binance.hold({ times: 1000, pathPrefix: '/api/v3/order' });
    const started = performance.now();
    let halt: Awaited<ReturnType<typeof o.inject>>;
    try {
      halt = await o.inject('POST', '/api/trading/halt', trader.headers, { reason: 'stop everything' });
    } finally {
      hung.release();
    }
    const elapsed = performance.now() - started;
    assert.equal(halt.statusCode, 200, halt.body);
    // Four at a time, none started after two timeouts: about three timeouts, where one after another took twelve.
    assert.ok(elapsed < 4 * TIMEOUT_MS, `answered in ${Math.round(elapsed)} ms`);
    assert.equal(halt.json().canceled_orders, 0, halt.body);
    assert.equal(halt.json().all_canceled, false, halt.body);
    const asked = cancelsAsked(trader);
    assert.ok(asked.length > 0 && asked.length < ids.length, `${asked.length} cancels asked: the deadline left some`);
    assert.equal(new Set(asked).size, asked.length, 'no cancel sent twice');
    for (const id of ids) {
      const stored = (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
      assert.equal(stored.status, 'open', 'what the venue did not answer stays as it is');
    }

    // Released, the venue carries out the cancels it held; the pass then looks every order up and cancels
    // those the halt did not ask, once each.
    await waitFor(
      () => venue(trader).filter((s) => s === 'CANCELED').length === asked.length,
      'the held cancels carried out',
    );
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0, JSON.stringify(pass));
    assert.deepEqual(venue(trader), Array(ids.length).fill('CANCELED'));
    const all = cancelsAsked(trader);
    assert.equal(all.length, ids.length, 'one cancel per order in all');
    assert.equal(new Set(all).size, ids.length);
    const orders = (await o.inject('GET', '/api/orders?mode=live', trader.headers)).json().orders;
    assert.deepEqual(
      orders.map((order: { status: string }) => order.status),
      Array(ids.length).fill('canceled'),
    );
  });

  it('cancels the others when one cancel fails, whichever reaches the venue first', async () => {
    const trader = await o.trader();
    const ids = await resting(trader, 3);
    o.book.fault('503-before', { method: 'DELETE', apiKey: trader.account.apiKey });
    const halt = await o.inject('POST', '/api/trading/halt', trader.headers, { reason: 'stop everything' });
    assert.equal(halt.statusCode, 200, halt.body);
    assert.equal(halt.json().canceled_orders, 2, halt.body);
    assert.equal(halt.json().all_canceled, false, halt.body);
    assert.deepEqual(venue(trader).sort(), ['CANCELED', 'CANCELED', 'NEW']);
    const asked = cancelsAsked(trader);
    assert.equal(asked.length, 3, 'each order asked once');
    assert.equal(new Set(asked).size, 3);
    const statuses = await Promise.all(
      ids.map(async (id) => (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json().status as string),
    );
    assert.deepEqual(statuses.sort(), ['canceled', 'canceled', 'open']);
  });
});
