// Paper trading offline (MARKET_DATA_SOURCE=simulated): the order's market, last price and book come
// from the simulated source, with every venue URL unreachable (decision 262).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

describe('paper orders with the simulated market source', () => {
  let t: TestApp;
  before(async () => {
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      env: { MARKET_DATA_SOURCE: 'simulated', BINANCE_API_URL: nowhere, COINGECKO_API_URL: nowhere },
    });
  });
  after(() => t?.close());

  const order = (headers: Record<string, string>, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/orders',
      headers,
      payload: { exchange: 'binance', symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.01', ...body },
    });

  it('fills a paper market order from the simulated book, whichever way the symbol is written', async () => {
    const user = await signIn(t.app, t.database);
    for (const symbol of ['BTC/USDT', 'BTCUSDT', 'btc-usdt']) {
      const placed = await order(user.headers, { symbol });
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'filled', placed.body);
      assert.equal(placed.json().symbol, 'BTC/USDT');
    }
    const account = await t.app.inject({ method: 'GET', url: '/api/paper/account', headers: user.headers });
    assert.equal(account.statusCode, 200, account.body);
  });

  it('refuses a pair the simulated source does not list with 422 naming the symbol', async () => {
    const user = await signIn(t.app, t.database);
    const placed = await order(user.headers, { symbol: 'PEPE/USDT' });
    assert.equal(placed.statusCode, 422, placed.body);
    assert.deepEqual(placed.json().detail[0].loc, ['body', 'symbol']);
  });
});
