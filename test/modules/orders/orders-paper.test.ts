// Paper orders through the same state machine (issue 39 part 3 wired in): the paper engine fills a market
// order from the venue's book, a resting limit fills when the price goes through it (the engine's
// notice, then a lookup), nothing reaches the venue's private API, and a strategy's fills reach it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signIn } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('paper orders', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
  });
  after(async () => {
    await o.close();
  });

  it('fills a market buy from the book, with fills of its own and no venue order or user trade', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const placed = await o.place(user, { mode: 'paper', amount: '0.01' });
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.mode, 'paper');
    assert.equal(order.status, 'filled');
    assert.equal(order.filled, '0.01');
    const detail = (await o.inject('GET', `/api/orders/${order.id}`, user.headers)).json();
    assert.ok(detail.fills.length >= 1);
    assert.equal(o.book.orders.length, 0);
    const trades = (await o.inject('GET', '/api/exchange/trades?exchange=binance', user.headers)).json();
    assert.equal(trades.total_records, 0);
  });

  it('rests a paper limit below the market and cancels it', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const placed = await o.place(user, { mode: 'paper', type: 'limit', price: '60000', amount: '0.01' });
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'open');
    const canceled = await o.inject('DELETE', `/api/orders/${placed.json().id}`, user.headers);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled');
  });

  it("takes the user's own strategy and refuses another's with 422", async () => {
    const user = await signIn(o.t.app, o.t.database);
    const other = await signIn(o.t.app, o.t.database);
    const strategy = await o.inject('POST', '/api/strategies', user.headers, { name: 'dip buyer' });
    assert.equal(strategy.statusCode, 201, strategy.body);
    const id = strategy.json().id;
    const own = await o.place(user, { mode: 'paper', amount: '0.01', strategy_id: id });
    assert.equal(own.statusCode, 201, own.body);
    assert.equal(own.json().strategy_id, id);
    const foreign = await o.place(other, { mode: 'paper', amount: '0.01', strategy_id: id });
    assert.equal(foreign.statusCode, 422, foreign.body);
    assert.deepEqual(foreign.json().detail[0].loc, ['body', 'strategy_id']);
    const listed = (await o.inject('GET', `/api/orders?strategy_id=${id}`, user.headers)).json();
    assert.equal(listed.total, 1);
  });
});
