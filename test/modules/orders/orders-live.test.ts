// Live orders against the Binance fake (issue 39): placing, reading, listing and cancelling, each fault
// of a send (answer lost after executing, 503 -1007 before and after, a slow answer) ending in the
// venue's state without a second send, and the validation that refuses before anything is sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIGN_WITHIN_MS } from '../../../src/platform/order-venue.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('live orders', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o.close();
  });

  // First in the file: the venue's markets are not loaded yet, so the order must ask for them.
  it('answers a venue outage while reading its markets as a 5xx with a reason, sending nothing', async () => {
    const trader = await o.trader();
    o.binance.fail(
      503,
      { code: -1001, msg: 'Internal error; unable to process your request.' },
      {
        pathPrefix: '/api/v3/exchangeInfo',
      },
    );
    const placed = await o.place(trader, {});
    assert.ok(placed.statusCode >= 502 && placed.statusCode <= 504, `${placed.statusCode} ${placed.body}`);
    assert.equal(typeof placed.json().detail, 'string');
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });

  it('fills a market buy at once: the order, its fills, the user trade and the balances', async () => {
    const trader = await o.trader();
    const placed = await o.place(trader, {});
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'filled');
    assert.equal(order.filled, '0.01');
    assert.equal(order.remaining, '0');
    assert.equal(order.average_price, '65000');
    assert.equal(order.cost, '650');
    assert.equal(order.mode, 'live');
    assert.equal(order.client_order_id, order.id);
    const venueOrders = o.book.of(trader.account.apiKey);
    assert.equal(venueOrders.length, 1);
    assert.equal(venueOrders[0]!.clientOrderId, order.client_order_id);
    assert.equal(order.venue_order_id, String(venueOrders[0]!.orderId));

    const detail = (await o.inject('GET', `/api/orders/${order.id}`, trader.headers)).json();
    assert.equal(detail.fills.length, 1);
    assert.equal(detail.fills[0].id, String(venueOrders[0]!.fills[0]!.tradeId));
    assert.equal(detail.fills[0].amount, '0.01');

    const trades = (await o.inject('GET', '/api/exchange/trades?exchange=binance', trader.headers)).json();
    assert.equal(trades.trades.length, 1);
    assert.equal(trades.trades[0].exchange_trade_id, detail.fills[0].id);
    assert.equal(trades.trades[0].total, 650);
    // Trade sync reads the same fill from myTrades (asked from before it): it is stored once.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const sync = await o.inject(
      'POST',
      `/api/exchange/trades/sync?exchange=binance&symbol=BTC/USDT&since=${since}`,
      trader.headers,
    );
    assert.equal(sync.statusCode, 200, sync.body);
    assert.equal(sync.json().trades_duplicate, 1);
    const again = (await o.inject('GET', '/api/exchange/trades?exchange=binance', trader.headers)).json();
    assert.equal(again.trades.length, 1);
    assert.equal(trader.account.balances.find((b) => b.asset === 'USDT')!.free, '99350');
  });

  it('rests a limit order, cancels it at the venue, and answers 409 for a second cancel', async () => {
    const trader = await o.trader();
    // The venue's own id names the pair too; the order answers it unified.
    const placed = await o.place(trader, { symbol: 'btcusdt', type: 'limit', price: '60000', amount: '0.01' });
    assert.equal(placed.json().symbol, 'BTC/USDT');
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'open');
    const id = placed.json().id;
    const canceled = await o.inject('DELETE', `/api/orders/${id}`, trader.headers);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled');
    assert.equal(o.book.of(trader.account.apiKey)[0]!.status, 'CANCELED');
    assertDetail(await o.inject('DELETE', `/api/orders/${id}`, trader.headers), 409, 'The order is already canceled');
  });

  it('records a resting order filled at the venue when the reconcile pass looks it up', async () => {
    const trader = await o.trader();
    const id = (await o.place(trader, { type: 'limit', price: '64000', amount: '0.01' })).json().id;
    assert.equal(o.book.cross('BTCUSDT', '63999'), 1);
    const run = await o.t.modules.orders.reconcile();
    assert.ok(run.changed >= 1);
    const detail = (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
    assert.equal(detail.status, 'filled');
    assert.equal(detail.average_price, '64000');
    assert.equal(detail.fills.length, 1);
  });

  for (const fault of ['drop-after', '503-after', 'slow-after'] as const) {
    it(`resolves a send whose answer is lost (${fault}) by a lookup, never a second send`, async () => {
      const trader = await o.trader();
      o.book.fault(fault, { ms: 2500 });
      const placed = await o.place(trader, {});
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled');
      assert.equal(o.book.of(trader.account.apiKey).length, 1);
      const detail = (await o.inject('GET', `/api/orders/${placed.json().id}`, trader.headers)).json();
      assert.equal(detail.fills.length, 1);
    });
  }

  it('keeps an order the venue never received unknown, then rejects it once the receive window passed', async () => {
    const trader = await o.trader();
    o.book.fault('503-before');
    const placed = await o.place(trader, {});
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'unknown');
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
    // Past Binance's receive window (11 s), but the send may have been signed up to SIGN_WITHIN_MS late.
    o.clock.advance(12_000);
    await o.t.modules.orders.reconcile();
    const waiting = (await o.inject('GET', `/api/orders/${placed.json().id}`, trader.headers)).json();
    assert.equal(waiting.status, 'unknown', 'a send signed late may still be taken');
    o.clock.advance(SIGN_WITHIN_MS);
    await o.t.modules.orders.reconcile();
    const detail = (await o.inject('GET', `/api/orders/${placed.json().id}`, trader.headers)).json();
    assert.equal(detail.status, 'rejected');
    assert.match(detail.reason, /never received/);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });

  it('answers a refusal of the venue as a rejected order with its reason', async () => {
    const trader = await o.trader({ USDT: '10' });
    const placed = await o.place(trader, {});
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'rejected');
    assert.match(placed.json().reason, /insufficient balance/);
  });

  it('refuses bad input with 422 naming the field, before anything is sent', async () => {
    const trader = await o.trader();
    const cases: [Record<string, unknown>, string][] = [
      [{ side: 'hold' }, 'side'],
      [{ type: 'stop' }, 'type'],
      [{ type: 'limit' }, 'price'],
      [{ amount: '0' }, 'amount'],
      [{ amount: '0.000001' }, 'amount'],
      [{ amount: '0.000015' }, 'amount'],
      [{ amount: '0.00005' }, 'amount'],
      [{ symbol: 'NOPE/USDT' }, 'symbol'],
    ];
    for (const [body, field] of cases) {
      const response = await o.place(trader, body);
      assert.equal(response.statusCode, 422, `${JSON.stringify(body)}: ${response.body}`);
      assert.ok(
        response.json().detail.some((issue: { loc: string[] }) => issue.loc.includes(field)),
        `${JSON.stringify(body)} names ${field}: ${response.body}`,
      );
    }
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });

  it('answers the same order for a repeated Idempotency-Key and 409 for another body', async () => {
    const trader = await o.trader();
    const first = await o.place(trader, {}, 'key-1');
    assert.equal(first.statusCode, 201);
    const second = await o.place(trader, {}, 'key-1');
    assert.equal(second.statusCode, 200);
    assert.equal(second.json().id, first.json().id);
    assert.equal(o.book.of(trader.account.apiKey).length, 1);
    assert.equal((await o.place(trader, { amount: '0.02' }, 'key-1')).statusCode, 409);
  });

  it("lists a user's own orders newest first with filters, and hides them from others (404)", async () => {
    const trader = await o.trader();
    const other = await o.trader();
    const a = (await o.place(trader, {})).json();
    const b = (await o.place(trader, { type: 'limit', price: '60000' })).json();
    const list = (await o.inject('GET', '/api/orders', trader.headers)).json();
    assert.deepEqual(
      list.orders.map((x: { id: string }) => x.id),
      [b.id, a.id],
    );
    assert.equal(list.total, 2);
    const open = (await o.inject('GET', '/api/orders?status=open&mode=live', trader.headers)).json();
    assert.deepEqual(
      open.orders.map((x: { id: string }) => x.id),
      [b.id],
    );
    assert.equal((await o.inject('GET', `/api/orders/${a.id}`, other.headers)).statusCode, 404);
    assert.equal((await o.inject('DELETE', `/api/orders/${b.id}`, other.headers)).statusCode, 404);
    const all = await o.inject('POST', '/api/orders/cancel-all', trader.headers, { mode: 'live' });
    assert.equal(all.statusCode, 200, all.body);
    assert.equal(all.json().count, 1);
    assert.equal(all.json().canceled[0].status, 'canceled');
    assert.equal((await o.inject('GET', '/api/orders', {})).statusCode, 401);
  });
});
