// Two instances of the service on one database (PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set):
// the same order asked of both at once (one Idempotency-Key) is stored once and sent once, and both
// reconciling the same unknown orders at once store each fill once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('orders on two instances', () => {
  let o: OrdersApp;
  let second: TestApp;
  before(async () => {
    o = await startOrdersApp({ app: { cachePrefix: 'orders-two-instances:' } });
    second = await buildTestApp({
      keepData: true,
      clock: o.clock,
      cachePrefix: 'orders-two-instances:',
      env: {
        BINANCE_API_URL: o.binance.url,
        EXCHANGE_RATE_LIMIT: 'false',
        EXCHANGE_TIMEOUT_MS: '1500',
        LIVE_TRADING: 'true',
      },
    });
  });
  after(async () => {
    await second?.close();
    await o?.close();
  });

  it('stores and sends one order for one Idempotency-Key asked of both instances at once', async () => {
    const trader = await o.trader();
    const body = { exchange: 'binance', symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.01', mode: 'live' };
    const headers = { ...trader.headers, 'idempotency-key': 'same-order' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? o.t.app : second.app).inject({ method: 'POST', url: '/api/orders', headers, payload: body }),
      ),
    );
    for (const answer of answers) assert.ok([200, 201].includes(answer.statusCode), answer.body);
    assert.equal(new Set(answers.map((a) => a.json().id)).size, 1);
    assert.equal(answers.filter((a) => a.statusCode === 201).length, 1);
    assert.equal(o.book.of(trader.account.apiKey).length, 1);
  });

  it('stores each fill once when both instances reconcile the same unknown orders at once', async () => {
    const trader = await o.trader();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      o.book.fault('drop-after');
      o.book.fault('503-before', { method: 'GET' });
      const placed = await o.place(trader, {});
      assert.equal(placed.json().status, 'unknown', placed.body);
      ids.push(placed.json().id);
    }
    await Promise.all([o.t.modules.orders.reconcile(), second.modules.orders.reconcile()]);
    for (const id of ids) {
      const detail = (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
      assert.equal(detail.status, 'filled');
      assert.equal(detail.fills.length, 1);
    }
    const trades = (await o.inject('GET', '/api/exchange/trades?exchange=binance', trader.headers)).json();
    assert.equal(trades.total_records, 4);
    assert.equal(o.book.of(trader.account.apiKey).length, 4);
  });
});
