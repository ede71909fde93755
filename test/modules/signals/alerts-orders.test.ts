// TradingView alerts through the order path (issue 40, point 2): an alert makes its order through the
// same door as POST /api/orders (source "signal", the hook named), in both forms; twenty concurrent
// copies of one alert make one order; the same strategy id at another time is another alert; the order
// path's refusals (limits, halt) are the alert's answer and are kept on the hook; the fill reaches the
// owner's notifications; a live hook's secret is made or replaced only with a fresh second factor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { alertRequest, timenow } from '../../fakes/tradingview.ts';
import { sql } from 'drizzle-orm';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { waitFor } from '../../helpers/wait.ts';
import { newClientAddress } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp, type Trader } from '../orders/orders-fixtures.ts';

describe('TradingView alerts through the order path', () => {
  let o: OrdersApp;
  let trader: Trader;
  let hook: { id: string; secret: string };

  before(async () => {
    o = await startOrdersApp({
      env: {
        SIGNAL_HOOK_LIMIT_PER_MINUTE: '1000',
        TRADING_MAX_ORDERS_PER_MINUTE: 'none',
        // These tests read the order id in the answer: on a busy machine the order step can outlast
        // TradingView's 2.5 s, after which the answer is a 202 without it.
        SIGNAL_ACK_WITHIN_MS: '60000',
      },
    });
    trader = await o.trader();
    const made = await o.inject('POST', '/api/signals/hooks', trader.headers, { name: 'live trend', mode: 'live' });
    assert.equal(made.statusCode, 201, made.body);
    hook = made.json();
  });
  after(() => o.close());

  const post = (message: string) =>
    o.t.app.inject({
      method: 'POST',
      url: `/api/signals/tradingview/${hook.id}`,
      ...alertRequest(message),
      remoteAddress: newClientAddress(),
    });
  const json = (fields: object) =>
    JSON.stringify({ secret: hook.secret, symbol: 'BTCUSDT', action: 'buy', amount: '0.001', ...fields });
  const order = async (id: string) => (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
  const counters = async () =>
    (await o.inject('GET', '/api/signals/hooks', trader.headers)).json<{
      hooks: { alerts_accepted: number; alerts_refused: number; last_error: string | null }[];
    }>().hooks[0]!;

  it('makes the order an alert asks for, marked as a signal’s, in both forms', async () => {
    const accepted = await post(json({ id: 'Long', time: timenow(o.clock.now()) }));
    assert.equal(accepted.statusCode, 202, accepted.body);
    const { accepted: yes, order_id: orderId } = accepted.json<{ accepted: boolean; order_id: string }>();
    assert.equal(yes, true);
    const made = await order(orderId);
    assert.equal(made.source, 'signal');
    assert.equal(made.signal_hook_id, hook.id);
    assert.equal(made.mode, 'live');
    assert.equal(made.side, 'buy');
    assert.equal(made.amount, '0.001');

    const lines = await post(
      `SECRET=${hook.secret}\nSYMBOL=BTC/USDT\nSIGNAL=SELL\nORDER_TYPE=MARKET\nVOLUME=0.002\nID=exit`,
    );
    assert.equal(lines.statusCode, 202, lines.body);
    const sold = await order(lines.json<{ order_id: string }>().order_id);
    assert.equal(sold.side, 'sell');
    assert.equal(sold.amount, '0.002');
    assert.equal((await counters()).alerts_accepted, 2);
  });

  it('makes one order for twenty concurrent copies of one alert, and another for the same id at another time', async () => {
    const before = o.book.of(trader.account.apiKey).length;
    const message = json({ id: 'Burst', time: timenow(o.clock.now()) });
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(message)));
    assert.equal(answers.filter((a) => a.statusCode === 202).length, 1, answers.map((a) => a.body).join('\n'));
    assert.equal(answers.filter((a) => a.statusCode === 200).length, 19);
    const ids = new Set(answers.map((a) => a.json<{ order_id: string }>().order_id));
    assert.equal(ids.size, 1, 'every copy names the one order');
    assert.equal(o.book.of(trader.account.apiKey).length, before + 1, 'one order reached the venue');
    const accepted = (await counters()).alerts_accepted;

    const again = await post(message);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json<{ order_id: string }>().order_id, [...ids][0]);
    o.clock.advance(60_000);
    const later = await post(json({ id: 'Burst', time: timenow(o.clock.now()) }));
    assert.equal(later.statusCode, 202, later.body);
    assert.notEqual(later.json<{ order_id: string }>().order_id, [...ids][0]);
    assert.equal((await counters()).alerts_accepted, accepted + 1, 'repeats count in neither');
  });

  it('makes another order for a long id (up to its 200 characters) at another time: the order key keeps the time', async () => {
    const before = o.book.of(trader.account.apiKey).length;
    const id = `Long-${'x'.repeat(195)}`;
    const first = await post(json({ id, time: timenow(o.clock.now()) }));
    assert.equal(first.statusCode, 202, first.body);
    o.clock.advance(60_000);
    const later = await post(json({ id, time: timenow(o.clock.now()) }));
    assert.equal(later.statusCode, 202, later.body);
    assert.notEqual(
      later.json<{ order_id: string }>().order_id,
      first.json<{ order_id: string }>().order_id,
      "the later alert is not answered with the earlier one's order",
    );
    assert.equal(o.book.of(trader.account.apiKey).length, before + 2, 'two orders reached the venue');
  });

  it('sizes by quote amount at the last price', async () => {
    const quoted = await post(json({ amount: undefined, amount_quote: '130' }));
    assert.equal(quoted.statusCode, 202, quoted.body);
    const made = await order(quoted.json<{ order_id: string }>().order_id);
    assert.ok(Number(made.amount) > 0 && Number(made.amount) * 65_000 <= 130.01, made.amount);
  });

  it('answers what the order path refuses: a limit (403), a halt (423), and keeps it on the hook', async () => {
    assert.equal(
      (await o.inject('PUT', '/api/trading/limits', trader.headers, { max_order_notional: '10' })).statusCode,
      200,
    );
    const limited = await post(json({ amount: '0.01' }));
    assert.equal(limited.statusCode, 403, limited.body);
    assert.match((await counters()).last_error ?? '', /^403: .*max_order_notional/);
    assert.equal(
      (await o.inject('PUT', '/api/trading/limits', trader.headers, { max_order_notional: null })).statusCode,
      200,
    );
    await o.inject('POST', '/api/trading/halt', trader.headers, { reason: 'lunch' });
    assertDetail(await post(json({})), 423, 'Trading is halted: lunch');
    await o.inject('POST', '/api/trading/resume', trader.headers);
  });

  it('tells the owner of the fill, as they chose, through the account events', async () => {
    // Mail goes only to a verified address (decision 840).
    await o.t.modules.admin.users.updateUser(trader.id, { emailVerified: true }, { id: null });
    const chose = await o.inject('PUT', '/api/notifications/preferences', trader.headers, {
      channels: [{ type: 'email' }],
      events: ['order.filled'],
    });
    assert.equal(chose.statusCode, 200, chose.body);
    const accepted = await post(json({ id: 'notify-me', time: timenow(o.clock.now()) }));
    assert.equal(accepted.statusCode, 202, accepted.body);
    const orderId = accepted.json<{ order_id: string }>().order_id;
    assert.equal((await order(orderId)).status, 'filled');
    await waitFor(
      async () =>
        (
          await o.t.database.rows(
            sql`SELECT 1 FROM outbox WHERE kind = 'mail.send' AND payload->>'to' = ${trader.email}
                AND payload->>'subject' LIKE 'Order filled: BUY 0.001 BTC/USDT%'`,
          )
        ).length === 1,
      'the fill notice queued once',
    );
  });

  // Last: it moves the clock past every session's second factor.
  it('makes or re-keys a live hook only with a fresh second factor, as a live order or a trading token needs', async () => {
    const late = await o.trader();
    o.clock.advance(11 * 60_000);
    // A session whose second factor is stale (or a stolen access token) must not mint a standing live secret.
    assertDetail(
      await o.inject('POST', '/api/signals/hooks', late.headers, { name: 'late', mode: 'live' }),
      403,
      'Second factor required',
    );
    assertDetail(
      await o.inject('POST', `/api/signals/hooks/${hook.id}/rotate`, trader.headers),
      403,
      'Second factor required',
    );
    const hooks = await o.t.database.rows(sql`SELECT 1 FROM signal_hooks WHERE user_id = ${late.id}`);
    assert.equal(hooks.length, 0, 'no live hook was stored');
    assert.equal((await post(json({ id: 'old-secret', time: timenow(o.clock.now()) }))).statusCode, 202);
    // A paper hook needs no second factor; a step-up makes the live one.
    assert.equal((await o.inject('POST', '/api/signals/hooks', late.headers, { name: 'paper' })).statusCode, 201);
    const code = referenceTotp(
      Buffer.from(decodeBase32(late.secret)),
      Math.floor(o.clock.now().getTime() / 30_000) * 30,
      6,
    );
    const stepped = await o.inject('POST', '/api/auth/2fa/step-up', late.headers, { code });
    assert.equal(stepped.statusCode, 200, stepped.body);
    const fresh = { authorization: `Bearer ${stepped.json<{ access_token: string }>().access_token}` };
    const made = await o.inject('POST', '/api/signals/hooks', fresh, { name: 'late', mode: 'live' });
    assert.equal(made.statusCode, 201, made.body);
  });
});
