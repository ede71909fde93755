// An alert's claim left without its order id (decision 710): the copy that claimed it stopped between the
// claim and recording the order (its process died), and the state it leaves is written here as it leaves
// it. Until the order step's bound has passed a repeat waits and answers 409 as before; past it one repeat
// takes the claim over and goes through the order door with the same key: one order at the venue whether
// the stopped copy had reached the door or not, two instances' repeats take it once, and the slow copy it
// was taken from no longer releases it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { alertClaimTakeOverAfterMs } from '../../../src/modules/signals/index.ts';
import { createSignalsRepository } from '../../../src/modules/signals/signals.repository.ts';
import { alertRequest } from '../../fakes/tradingview.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { buildTestApp, newClientAddress, type TestApp } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp, type Trader } from '../orders/orders-fixtures.ts';

const ENV = {
  SIGNAL_HOOK_LIMIT_PER_MINUTE: '1000',
  TRADING_MAX_ORDERS_PER_MINUTE: 'none',
  // These tests read the order id in the answer (alerts-orders.test.ts says why).
  SIGNAL_ACK_WITHIN_MS: '60000',
};

describe('an alert claim left without its order', () => {
  let o: OrdersApp;
  /** A second instance of the service on the same database. */
  let other: TestApp;
  let trader: Trader;
  let hook: { id: string; secret: string };
  let bound: number;

  before(async () => {
    o = await startOrdersApp({ env: ENV });
    other = await buildTestApp({
      clock: o.clock,
      keepData: true,
      env: {
        BINANCE_API_URL: o.binance.url,
        EXCHANGE_RATE_LIMIT: 'false',
        EXCHANGE_TIMEOUT_MS: '1500',
        LIVE_TRADING: 'true',
        ...ENV,
      },
    });
    trader = await o.trader();
    const made = await o.inject('POST', '/api/signals/hooks', trader.headers, { name: 'live trend', mode: 'live' });
    assert.equal(made.statusCode, 201, made.body);
    hook = made.json();
    bound = alertClaimTakeOverAfterMs(o.t.config);
  });
  after(async () => {
    await other.close();
    await o.close();
  });

  const post = (id: string, app: TestApp = o.t) =>
    app.app.inject({
      method: 'POST',
      url: `/api/signals/tradingview/${hook.id}`,
      // No time: such an alert is never stale, so only the claim's age decides.
      ...alertRequest(JSON.stringify({ secret: hook.secret, symbol: 'BTCUSDT', action: 'buy', amount: '0.001', id })),
      remoteAddress: newClientAddress(),
    });
  const sent = () => o.book.of(trader.account.apiKey).length;
  /** The orders stored under the alert's order key (decision 221), and its claim's order id. */
  const ordersOf = async (alertKey: string) =>
    (
      await o.t.database.rows<{ id: string }>(
        sql`SELECT id FROM orders WHERE idempotency_key = ${`signal:${hook.id}:${alertKey}`}`,
      )
    ).map((row) => row.id);
  const claimOf = async (alertKey: string) =>
    (
      await o.t.database.rows<{ order_id: string | null }>(
        sql`SELECT order_id FROM signal_alerts WHERE hook_id = ${hook.id} AND alert_key = ${alertKey}`,
      )
    )[0];
  /** The claim as a copy leaves it when its process dies before the order's id is recorded. */
  const crashedClaim = (alertKey: string) =>
    o.t.database.db.execute(
      sql`INSERT INTO signal_alerts (hook_id, alert_key, received_at) VALUES (${hook.id}, ${alertKey}, ${o.clock.now().toISOString()})`,
    );
  const stillPlacing = (response: Awaited<ReturnType<typeof post>>) =>
    assertDetail(response, 409, 'This alert is still being placed by an earlier copy');

  it('waits as before until the bound, then one repeat places the order the stopped copy never sent', async () => {
    assert.ok(bound > 60_000 && bound < 3_600_000, `a bound of ${bound} ms`);
    const before = sent();
    await crashedClaim('never-sent');
    // The repeat waits 2 s, on a clock that runs on: well short of the bound, so it stays short of it.
    o.clock.advance(bound - 10_000);
    stillPlacing(await post('never-sent'));
    assert.equal(sent(), before, 'nothing sent before the bound');
    assert.deepEqual(await ordersOf('never-sent'), []);

    o.clock.advance(10_001);
    const taken = await post('never-sent');
    assert.equal(taken.statusCode, 202, taken.body);
    const orderId = taken.json<{ order_id: string }>().order_id;
    assert.deepEqual(await ordersOf('never-sent'), [orderId]);
    assert.equal((await claimOf('never-sent'))?.order_id, orderId);
    assert.equal(sent(), before + 1, 'one order reached the venue');

    const again = await post('never-sent');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json<{ order_id: string }>().order_id, orderId);
    assert.equal(sent(), before + 1);
  });

  it('answers the order a stopped copy had stored through the door: never a second one', async () => {
    const first = await post('reached');
    assert.equal(first.statusCode, 202, first.body);
    const orderId = first.json<{ order_id: string }>().order_id;
    const before = sent();
    // Its process died after the door stored (and sent) the order, before the claim named it.
    await o.t.database.db.execute(
      sql`UPDATE signal_alerts SET order_id = NULL, received_at = ${o.clock.now().toISOString()}
          WHERE hook_id = ${hook.id} AND alert_key = 'reached'`,
    );
    stillPlacing(await post('reached'));

    o.clock.advance(bound + 1);
    const repeat = await post('reached');
    assert.equal(repeat.statusCode, 200, repeat.body);
    assert.equal(repeat.json<{ order_id: string }>().order_id, orderId);
    assert.deepEqual(await ordersOf('reached'), [orderId], 'one order under its key');
    assert.equal((await claimOf('reached'))?.order_id, orderId);
    assert.equal(sent(), before, 'nothing sent again');
  });

  it('answers the order a stopped copy stored for an alert sized in percent, which would size otherwise now', async () => {
    const made = await o.inject('POST', '/api/signals/hooks', trader.headers, { name: 'paper share' });
    assert.equal(made.statusCode, 201, made.body);
    const paper = made.json<{ id: string; secret: string }>();
    const share = () =>
      o.t.app.inject({
        method: 'POST',
        url: `/api/signals/tradingview/${paper.id}`,
        ...alertRequest(
          JSON.stringify({ secret: paper.secret, symbol: 'BTCUSDT', action: 'buy', percent: '10', id: 'share' }),
        ),
        remoteAddress: newClientAddress(),
      });
    const first = await share();
    assert.equal(first.statusCode, 202, first.body);
    const orderId = first.json<{ order_id: string }>().order_id;
    // Its process died after the door stored the order (which spent a tenth of the free quote).
    await o.t.database.db.execute(
      sql`UPDATE signal_alerts SET order_id = NULL WHERE hook_id = ${paper.id} AND alert_key = 'share'`,
    );
    o.clock.advance(bound + 1);
    const repeat = await share();
    assert.equal(repeat.statusCode, 200, repeat.body);
    assert.equal(repeat.json<{ order_id: string }>().order_id, orderId);
    const stored = await o.t.database.rows<{ id: string }>(
      sql`SELECT id FROM orders WHERE idempotency_key = ${`signal:${paper.id}:share`}`,
    );
    assert.deepEqual(
      stored.map((row) => row.id),
      [orderId],
    );
  });

  it('is taken over once by repeats on two instances at once', async () => {
    const before = sent();
    await crashedClaim('two-instances');
    o.clock.advance(bound + 1);
    const answers = await Promise.all([post('two-instances'), post('two-instances', other)]);
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.equal(statuses[1], 202, answers.map((a) => a.body).join('\n'));
    // The other waits for the order (200), or, past its 2 s, answers that it is still being placed.
    assert.ok(statuses[0] === 200 || statuses[0] === 409, answers.map((a) => a.body).join('\n'));
    assert.equal((await ordersOf('two-instances')).length, 1);
    assert.equal(sent(), before + 1, 'one order reached the venue');
  });

  it('lets one claim of two concurrent ones take a stopped copy’s claim (the database decides)', async () => {
    await crashedClaim('raced');
    const now = new Date(o.clock.now().getTime() + bound + 1);
    const takeOverBefore = new Date(now.getTime() - bound);
    const claims = await Promise.all(
      [o.t.database.db, other.database.db, o.t.database.db, other.database.db].map((db) =>
        createSignalsRepository(db).claim(hook.id, 'raced', now, takeOverBefore),
      ),
    );
    assert.equal(claims.filter((claim) => 'claimed' in claim).length, 1, JSON.stringify(claims));
  });

  it('keeps a claim taken over from a copy that was slow, not dead, when that copy’s order step fails', async () => {
    const repo = createSignalsRepository(o.t.database.db);
    const first = o.clock.now();
    const claim = await repo.claim(hook.id, 'slow', first, new Date(first.getTime() - bound));
    assert.ok('claimed' in claim && !claim.takenOver);
    const later = new Date(first.getTime() + bound + 1);
    const taken = await repo.claim(hook.id, 'slow', later, new Date(later.getTime() - bound));
    assert.ok('claimed' in taken && taken.takenOver);
    // The slow copy's step fails: it releases the claim it made, which is no longer its own.
    await repo.release(hook.id, 'slow', first);
    assert.deepEqual(await claimOf('slow'), { order_id: null }, 'the claim taken over stays');
    await repo.release(hook.id, 'slow', later);
    assert.equal(await claimOf('slow'), undefined, 'its holder may release it');
  });
});
