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

  it('refuses a paper order that would carry a balance to 10^20, filled now or resting (decision 832)', async () => {
    const user = await signIn(o.t.app, o.t.database);
    const reset = async (balances: Record<string, string>) => {
      const answer = await o.inject('POST', '/api/paper/account/reset', user.headers, { balances });
      assert.equal(answer.statusCode, 200, answer.body);
    };
    const balances = async () =>
      Object.fromEntries(
        (await o.inject('GET', '/api/paper/account', user.headers))
          .json<{ balances: { asset: string; free: string; locked: string }[] }>()
          .balances.map((b) => [b.asset, [b.free, b.locked]]),
      );
    const largest = '99999999999999999999';
    const cases: [Record<string, string>, Record<string, unknown>, string][] = [
      // A market sell's proceeds past what the quote's balance holds.
      [{ USDT: largest, BTC: '1' }, { side: 'sell', amount: '0.01' }, 'USDT'],
      // A limit buy below the market: its lock fits, the base it receives once it fills would not.
      [{ USDT: '1000', BTC: `${largest}.995` }, { type: 'limit', price: '60000', amount: '0.01' }, 'BTC'],
    ];
    for (const [held, body, asset] of cases) {
      await reset(held);
      const before = await balances();
      const answer = await o.place(user, { mode: 'paper', ...body });
      assert.equal(answer.statusCode, 201, `${JSON.stringify(body)}: ${answer.body}`);
      assert.equal(answer.json().status, 'rejected', answer.body);
      assert.match(answer.json().reason, new RegExp(`paper balance of ${asset} would reach 10\\^20`));
      assert.deepEqual(await balances(), before, 'nothing moved');
    }
    await reset({ USDT: '1000', BTC: '1' });
    const fits = await o.place(user, { mode: 'paper', side: 'sell', amount: '0.01' });
    assert.equal(fits.json().status, 'filled', fits.body);
  });
});
