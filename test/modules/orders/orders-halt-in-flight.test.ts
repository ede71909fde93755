// An order the gate admitted just before a halt committed, stored only after the halt's cancel-all had read
// the open orders: it must not be left open under the halt (decision 771). The paper engine reads the venue's
// book between the gate and the order's write; the Binance fake holds that read while the user halts. An order
// the halt could not cancel is the next reconcile pass's (decision 830).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signIn } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('an order in flight when its user halts', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
  });
  after(async () => {
    await o.close();
  });

  it('is canceled once stored, when the halt committed after the gate admitted it', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const books = () => o.binance.requests.filter((r) => r.path === '/api/v3/depth').length;
    const before = books();
    const held = o.binance.hold({ pathPrefix: '/api/v3/depth' });
    // A limit buy below the market: it would rest (open) in the paper engine.
    const placing = o.place(user, { mode: 'paper', type: 'limit', price: '60000', amount: '0.01' });
    // Admitted (the gate read no halt) and now reading the book, before anything is stored.
    await waitFor(() => books() > before, 'the paper engine to ask for the book');

    const halt = await o.inject('POST', '/api/trading/halt', user.headers, { reason: 'stop everything' });
    assert.equal(halt.statusCode, 200, halt.body);
    assert.equal(halt.json().canceled_orders, 0, 'the halt found nothing stored to cancel');

    held.release();
    const placed = await placing;
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'canceled', placed.body);
    const open = await o.inject('GET', '/api/orders?mode=paper', user.headers);
    assert.deepEqual(
      open.json().orders.map((order: { status: string }) => order.status),
      ['canceled'],
    );
    const account = (await o.inject('GET', '/api/paper/account', user.headers)).json();
    const usdt = account.balances.find((b: { asset: string }) => b.asset === 'USDT');
    assert.equal(Number(usdt.locked), 0, 'the order no longer holds any quote');
  });

  it("is canceled by the next reconcile pass when the halt's own cancel got no answer (decision 830)", async () => {
    const trader = await o.trader();
    const placed = await o.place(trader, { type: 'limit', price: '60000' });
    assert.equal(placed.json().status, 'open', placed.body);
    // The venue answers the halt's cancel with a 5xx, having done nothing: the order stays open under the halt.
    o.book.fault('503-before', { method: 'DELETE', apiKey: trader.account.apiKey });
    const halt = await o.inject('POST', '/api/trading/halt', trader.headers, { reason: 'stop everything' });
    assert.equal(halt.statusCode, 200, halt.body);
    assert.equal(halt.json().all_canceled, false, halt.body);
    const venue = () => o.book.of(trader.account.apiKey).map((v) => v.status);
    assert.deepEqual(venue(), ['NEW']);

    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    const stored = (await o.inject('GET', `/api/orders/${placed.json().id}`, trader.headers)).json();
    assert.equal(stored.status, 'canceled');
    assert.deepEqual(venue(), ['CANCELED']);
  });
});
