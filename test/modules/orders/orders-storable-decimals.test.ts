// Amounts and prices past what an order's columns hold (numeric(38,18)) on a server without a notional
// limit (TRADING_MAX_ORDER_NOTIONAL=none): 422 naming the field, nothing stored and nothing sent, never
// the insert's 500 (decision 770).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signIn } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('decimals an order cannot hold', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({
      env: {
        MARKET_UPSTREAM_TIMEOUT_MS: '10000',
        TRADING_MAX_ORDER_NOTIONAL: 'none',
        TRADING_PRICE_BAND_PERCENT: 'none',
      },
    });
  });
  after(async () => {
    await o.close();
  });

  const stored = async (user: { headers: Record<string, string> }) =>
    (await o.inject('GET', '/api/orders?limit=500', user.headers)).json<{ total: number }>().total;

  it('refuses an amount or a price past 20 whole digits with 422 naming it, paper and live, sending nothing', async () => {
    const trader = await o.trader();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ amount: '100000000000000000000000' }, 'amount', 'decimal_whole_digits'],
      [{ amount: 1e25 }, 'amount', 'decimal_whole_digits'],
      [{ type: 'limit', amount: '0.01', price: '99999999999999999999999' }, 'price', 'decimal_whole_digits'],
      [{ type: 'limit', amount: '0.01', price: 1e30 }, 'price', 'decimal_whole_digits'],
      [{ amount: '0.0000000000000000001' }, 'amount', 'decimal_max_places'],
    ];
    for (const mode of ['paper', 'live']) {
      for (const [body, field, type] of cases) {
        const answer = await o.place(trader, { mode, ...body });
        assert.equal(answer.statusCode, 422, `${mode} ${JSON.stringify(body)}: ${answer.body}`);
        const [issue] = answer.json<{ detail: { loc: string[]; type: string }[] }>().detail;
        assert.deepEqual(issue?.loc, ['body', field]);
        assert.equal(issue?.type, type);
      }
    }
    assert.equal(await stored(trader), 0);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);
  });

  it('refuses an order whose notional is past what its cost and a balance hold, with 422 on the amount', async () => {
    const user = await signIn(o.t.app, o.t.database);
    // 20 whole digits each fit; their product (a limit's price or the market's last) does not.
    for (const body of [
      { amount: '99999999999999999999.1' },
      { type: 'limit', amount: '10000', price: '99999999999999999999' },
    ]) {
      const answer = await o.place(user, { mode: 'paper', ...body });
      assert.equal(answer.statusCode, 422, `${JSON.stringify(body)}: ${answer.body}`);
      assert.deepEqual(answer.json().detail[0].loc, ['body', 'amount']);
      assert.match(answer.json().detail[0].msg, /largest notional/);
    }
    assert.equal(await stored(user), 0);
    const fits = await o.place(user, { mode: 'paper', amount: '0.01' });
    assert.equal(fits.statusCode, 201, fits.body);
  });
});
