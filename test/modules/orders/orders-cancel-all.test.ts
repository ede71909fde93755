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

  /** The venue's statuses of the trader's orders: the one still resting by its client order id, the others. */
  function venueStatuses(trader: Trader): Record<string, string | string[]> {
    const orders = o.book.of(trader.account.apiKey);
    const resting = orders.filter((v) => v.status === 'NEW');
    return {
      ...Object.fromEntries(resting.map((v) => [v.clientOrderId, v.status])),
      others: orders.filter((v) => v.status !== 'NEW').map((v) => v.status),
    };
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
    // Cancels run a few at a time (decision 913): the fault meets whichever cancel reaches the venue first.
    assert.equal(body.failed.length, 1);
    const failed = body.failed[0].order;
    assert.equal(failed.status, 'open');
    assert.match(body.failed[0].detail, /no answer to the cancel/);
    assert.deepEqual(
      body.canceled.map((c: { status: string }) => c.status),
      ['canceled', 'canceled'],
    );
    assert.deepEqual(new Set([...body.canceled.map((c: { id: string }) => c.id), failed.id]), new Set(ids));
    assert.deepEqual(venueStatuses(trader), { [failed.client_order_id]: 'NEW', others: ['CANCELED', 'CANCELED'] });
  });

  it('lists the order the venue called unknown on cancel while it still rests, and cancels the others', async () => {
    const trader = await o.trader();
    const ids = await restingOrders(trader);
    // The next request to /api/v3/order (the first cancel to reach the venue) answers -2011; its lookup finds
    // the order open.
    o.binance.fail(400, binanceError(-2011, 'Unknown order sent.'), { pathPrefix: '/api/v3/order' });
    const body = await cancelAll(trader);
    assert.equal(body.count, 2, JSON.stringify(body));
    assert.equal(body.failed.length, 1);
    const failed = body.failed[0].order;
    assert.equal(failed.status, 'open');
    assert.ok(ids.includes(failed.id));
    assert.deepEqual(venueStatuses(trader), { [failed.client_order_id]: 'NEW', others: ['CANCELED', 'CANCELED'] });
  });
});

// Decision 913: a venue that does not answer holds cancel-all for a few venue timeouts, not one per order:
// a few cancels at a time, none started after the deadline (listed as not asked), none sent twice.
describe('cancel-all against a venue that hangs', () => {
  const TIMEOUT_MS = 1500;
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { EXCHANGE_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  after(async () => {
    await o?.close();
  });

  it('answers within a bounded time, lists the cancels it could not ask, and sends none twice', async () => {
    const trader = await o.trader({ USDT: '1000000', BTC: '10' });
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const placed = await o.place(trader, { type: 'limit', price: String(60_000 + i * 10) });
      assert.equal(placed.json().status, 'open', placed.body);
      ids.push(placed.json().id);
    }
    const cancels = () =>
      o.binance.requests
        .filter(
          (r) =>
            r.method === 'DELETE' && r.path === '/api/v3/order' && r.headers['x-mbx-apikey'] === trader.account.apiKey,
        )
        .map((r) => r.params.get('origClientOrderId'));
    // Every order request hangs until released: the venue neither cancels nor answers.
    const hung = o.binance.hold({ times: 1000, pathPrefix: '/api/v3/order' });
    const started = performance.now();
    let body: { count: number; failed: { order: { id: string; status: string }; detail: string }[] };
    try {
      const all = await o.inject('POST', '/api/orders/cancel-all', trader.headers, { mode: 'live' });
      assert.equal(all.statusCode, 200, all.body);
      body = all.json();
    } finally {
      hung.release();
    }
    const elapsed = performance.now() - started;
    // Four at a time, none started after two timeouts: about three timeouts, where one after another took twelve.
    assert.ok(elapsed < 4 * TIMEOUT_MS, `answered in ${Math.round(elapsed)} ms`);
    assert.equal(body.count, 0, JSON.stringify(body));
    assert.deepEqual(
      body.failed.map((f: { order: { id: string } }) => f.order.id),
      ids,
      'every order listed, in order',
    );
    const notAsked = body.failed.filter((f: { detail: string }) => /^Not asked/.test(f.detail));
    assert.ok(notAsked.length > 0, 'the deadline left some cancels not asked');
    for (const f of body.failed) assert.equal(f.order.status, 'open');
    const asked = cancels();
    assert.equal(asked.length, 12 - notAsked.length, 'each order asked at most once');
    assert.equal(new Set(asked).size, asked.length, 'no cancel sent twice');

    // Asked again on a venue that answers, every order ends canceled; the venue got one cancel per order more.
    const again = await o.inject('POST', '/api/orders/cancel-all', trader.headers, { mode: 'live' });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().count, 12, again.body);
    assert.ok(o.book.of(trader.account.apiKey).every((v) => v.status === 'CANCELED'));
  });
});
