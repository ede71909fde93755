// The risk controls in the order path (issue 39 part 5): limits checked before anything is stored or
// sent, a halt cancels open orders first and refuses new ones with 423, a day's realized loss past the
// limit halts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { signIn } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('orders under the risk controls', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o.close();
  });

  it('refuses an order above max_order_notional with 403 naming the limit, storing and sending nothing', async () => {
    const trader = await o.trader();
    const set = await o.inject('PUT', '/api/trading/limits', trader.headers, { max_order_notional: '100' });
    assert.equal(set.statusCode, 200, set.body);
    const refused = await o.place(trader, {});
    assert.equal(refused.statusCode, 403, refused.body);
    assert.match(refused.json().detail, /max_order_notional/);
    assert.equal((await o.inject('GET', '/api/orders', trader.headers)).json().total, 0);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });

  it('cancels open orders when the user halts, then refuses new ones with 423 and the reason', async () => {
    const trader = await o.trader();
    const resting = (await o.place(trader, { type: 'limit', price: '60000' })).json();
    assert.equal(resting.status, 'open');
    const halted = await o.inject('POST', '/api/trading/halt', trader.headers, { reason: 'going fishing' });
    assert.equal(halted.statusCode, 200, halted.body);
    const detail = (await o.inject('GET', `/api/orders/${resting.id}`, trader.headers)).json();
    assert.equal(detail.status, 'canceled');
    assert.equal(o.book.of(trader.account.apiKey)[0]!.status, 'CANCELED');
    assertDetail(await o.place(trader, {}), 423, 'Trading is halted: going fishing');
    // A credential that is not the user's answers first, as when it was read before the halt (decision 460).
    assert.equal((await o.place(trader, { credential_id: randomUUID() })).statusCode, 404);
    assert.equal(o.book.of(trader.account.apiKey).length, 1);
  });

  it("halts the user once the day's realized loss passes daily_loss_limit", async () => {
    const trader = await o.trader();
    await o.inject('PUT', '/api/trading/limits', trader.headers, { daily_loss_limit: '5' });
    // Buy at 65000, sell back lower: the fake's price moves for the sell.
    assert.equal((await o.place(trader, { amount: '0.01' })).json().status, 'filled');
    const symbol = o.binance.symbols.find((s) => s.symbol === 'BTCUSDT')!;
    const before = symbol.price;
    symbol.price = '64000.00';
    try {
      const sold = await o.place(trader, { side: 'sell', amount: '0.009' });
      assert.equal(sold.json().status, 'filled', sold.body);
    } finally {
      symbol.price = before;
    }
    const status = (await o.inject('GET', '/api/trading/status', trader.headers)).json();
    assert.equal(status.halted, true, JSON.stringify(status));
    assert.equal((await o.place(trader, {})).statusCode, 423);
  });

  // The limits the check weighs come with the statement that stores the fill (decision 461): the platform's
  // cap holds for a user with no limits of their own, on a live fill and on a paper one.
  it("halts users without limits of their own once the day's loss passes the platform's cap", async () => {
    const admin = await signIn(o.t.app, o.t.database, { role: 'admin' });
    const cap = (daily_loss_limit: string | null) =>
      o.inject('PUT', '/api/admin/trading/limits', admin.headers, { daily_loss_limit });
    assert.equal((await cap('1')).statusCode, 200);
    try {
      const live = await o.trader();
      assert.equal((await o.place(live, { amount: '0.01' })).json().status, 'filled');
      const symbol = o.binance.symbols.find((s) => s.symbol === 'BTCUSDT')!;
      const before = symbol.price;
      symbol.price = '64000.00';
      try {
        assert.equal((await o.place(live, { side: 'sell', amount: '0.009' })).json().status, 'filled');
      } finally {
        symbol.price = before;
      }
      assert.equal((await o.inject('GET', '/api/trading/status', live.headers)).json().halted, true);

      // A paper buy's fee is a realized loss: past a cap of 0.01.
      assert.equal((await cap('0.01')).statusCode, 200);
      const paper = await o.trader();
      const placed = await o.place(paper, { mode: 'paper', amount: '0.01' });
      assert.equal(placed.json().status, 'filled', placed.body);
      const status = (await o.inject('GET', '/api/trading/status', paper.headers)).json();
      assert.equal(status.halted, true, JSON.stringify(status));
      assert.match(status.reason, /past daily_loss_limit 0\.01$/);
    } finally {
      await cap(null);
    }
  });
});

describe('a market order while the venue names no last price', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o.close();
  });

  it('refuses a market order whose notional no last price can weigh, under max_order_notional (decision 772)', async () => {
    const trader = await o.trader();
    // The venue's ticker fails: no last price for a pair this process has not priced yet. Its own app: the
    // failures left over would refuse the other tests' market orders.
    o.binance.fail(503, undefined, { pathPrefix: '/api/v3/ticker', times: 50 });
    const refused = await o.place(trader, { symbol: 'ETH/USDT', amount: '10' });
    assertDetail(
      refused,
      403,
      "Refused by your risk limit max_order_notional: No last price is known to weigh the market order's " +
        'notional against max_order_notional',
    );
    assert.equal((await o.inject('GET', '/api/orders', trader.headers)).json().total, 0);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });
});
