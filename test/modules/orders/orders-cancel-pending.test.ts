// Canceling an order still `pending` (stored, its request stopped before claiming it for sending): it
// never left, so it ends `canceled` without a venue call, and nothing sends it afterwards (decision 260).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { clientOrderIdFor } from '../../../src/platform/client-order-ids.ts';
import { orders } from '../../../src/modules/orders/orders.tables.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

describe('canceling an order still pending', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o?.close();
  });

  /** The row a request leaves when its process stops between storing the order and claiming it. */
  async function storedNotSent(trader: Trader, mode: 'live' | 'paper'): Promise<string> {
    const id = randomUUID();
    const now = o.clock.now();
    await o.t.database.db.insert(orders).values({
      id,
      userId: trader.id,
      clientOrderId: clientOrderIdFor('binance', id),
      exchange: 'binance',
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'market',
      timeInForce: 'GTC',
      mode,
      amount: '0.01',
      price: null,
      status: 'pending',
      credentialId: mode === 'live' ? trader.credentialId : null,
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  for (const mode of ['live', 'paper'] as const) {
    it(`answers canceled for a ${mode} order, asks no venue, and no pass sends it later`, async () => {
      const trader = await o.trader();
      const id = await storedNotSent(trader, mode);
      const venueCalls = o.binance.requests.length;

      const canceled = await o.inject('DELETE', `/api/orders/${id}`, trader.headers);
      assert.equal(canceled.statusCode, 200, canceled.body);
      assert.equal(canceled.json().status, 'canceled');
      assert.equal(canceled.json().reason, 'canceled before it was sent');
      assert.equal(o.binance.requests.slice(venueCalls).filter((r) => r.path.startsWith('/api/v3/order')).length, 0);

      o.clock.advance(120_000);
      await o.t.modules.orders.reconcile();
      const detail = (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
      assert.equal(detail.status, 'canceled');
      assert.equal(o.book.of(trader.account.apiKey).length, 0);
      const again = await o.inject('DELETE', `/api/orders/${id}`, trader.headers);
      assert.equal(again.statusCode, 409, again.body);
    });
  }

  it('still rejects, as never sent, an order left pending past its grace when nobody canceled it', async () => {
    const trader = await o.trader();
    const id = await storedNotSent(trader, 'live');
    o.clock.advance(120_000);
    await o.t.modules.orders.reconcile();
    const detail = (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
    assert.equal(detail.status, 'rejected');
    assert.match(detail.reason, /never sent/);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });
});
