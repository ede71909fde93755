// Cancel-all asks every order, whatever one order's cancel did (decision 831): an order whose cancel the
// venue answered with a 5xx, or as unknown while it still rests, is listed in `failed` with why; the others
// are canceled, and `count` counts them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { binanceError } from '../../fakes/binance-shapes.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

describe('cancel-all with one cancel failing at the venue', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o?.close();
  });

  async function restingOrders(trader: Trader): Promise<string[]> {
    const ids: string[] = [];
    for (const price of ['60000', '60100', '60200']) {
      const placed = await o.place(trader, { type: 'limit', price });
      assert.equal(placed.json().status, 'open', placed.body);
      ids.push(placed.json().id);
    }
    return ids;
  }

  async function cancelAll(trader: Trader) {
    const all = await o.inject('POST', '/api/orders/cancel-all', trader.headers, { mode: 'live' });
    assert.equal(all.statusCode, 200, all.body);
    return all.json();
  }

  it('lists the order whose cancel got a 5xx, and cancels the others', async () => {
    const trader = await o.trader();
    const ids = await restingOrders(trader);
    o.book.fault('503-before', { method: 'DELETE', apiKey: trader.account.apiKey });
    const body = await cancelAll(trader);
    assert.equal(body.count, 2, JSON.stringify(body));
    assert.deepEqual(
      body.canceled.map((c: { id: string; status: string }) => [c.id, c.status]),
      [
        [ids[1], 'canceled'],
        [ids[2], 'canceled'],
      ],
    );
    assert.equal(body.failed.length, 1);
    assert.equal(body.failed[0].order.id, ids[0]);
    assert.equal(body.failed[0].order.status, 'open');
    assert.match(body.failed[0].detail, /no answer to the cancel/);
    assert.deepEqual(
      o.book.of(trader.account.apiKey).map((v) => v.status),
      ['NEW', 'CANCELED', 'CANCELED'],
    );
  });

  it('lists the order the venue called unknown on cancel while it still rests, and cancels the others', async () => {
    const trader = await o.trader();
    const ids = await restingOrders(trader);
    // The next request to /api/v3/order (the first order's cancel) answers -2011; its lookup finds it open.
    o.binance.fail(400, binanceError(-2011, 'Unknown order sent.'), { pathPrefix: '/api/v3/order' });
    const body = await cancelAll(trader);
    assert.equal(body.count, 2, JSON.stringify(body));
    assert.deepEqual(
      body.failed.map((f: { order: { id: string; status: string } }) => [f.order.id, f.order.status]),
      [[ids[0], 'open']],
    );
    assert.deepEqual(
      o.book.of(trader.account.apiKey).map((v) => v.status),
      ['NEW', 'CANCELED', 'CANCELED'],
    );
  });
});
