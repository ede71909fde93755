// settle-signal-alerts (decision 1160): an alert answered before its order step ended keeps on its claim
// the order it owes (never its secret) until the order is made. A claim whose copy stopped with its
// process (the state it leaves is written here as it leaves it, through the same claim the route makes)
// is settled by the job once the order step's bound has passed: the order the door stored is recorded and
// nothing sent again; the alert is placed once while within its hook's max_lag_seconds; past that it is
// given up and the owner told; an alert the door refuses now is released and told as at once.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { OwedAlert } from '../../../src/modules/signals/alerts.domain.ts';
import { alertClaimTakeOverAfterMs } from '../../../src/modules/signals/index.ts';
import { createSignalsRepository } from '../../../src/modules/signals/signals.repository.ts';
import { waitFor } from '../../helpers/wait.ts';
import { JOB_SECRET, runJob, trigger } from '../jobs/jobs-fixtures.ts';
import { startOrdersApp, type OrdersApp, type Trader } from '../orders/orders-fixtures.ts';
import { listedHook, makeHook as makeHookOf, postAlert, type MadeHook } from './signals-fixtures.ts';

const JOB = 'settle-signal-alerts';
const NONE = { checked: 0, recorded: 0, placed: 0, refused: 0, expired: 0, failed: 0 };

describe(JOB, () => {
  let o: OrdersApp;
  let trader: Trader;
  let bound: number;

  before(async () => {
    o = await startOrdersApp({
      env: {
        SIGNAL_HOOK_LIMIT_PER_MINUTE: '1000',
        TRADING_MAX_ORDERS_PER_MINUTE: 'none',
        // Under the venue's slow answer below: the alert is answered while its order step runs.
        SIGNAL_ACK_WITHIN_MS: '300',
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        JOB_TRIGGER_WINDOW_SECONDS: '0',
      },
    });
    bound = alertClaimTakeOverAfterMs(o.t.config);
  });
  // Each test moves the clock past the bound: a trader signed in (and stepped up) just now.
  beforeEach(async () => {
    trader = await o.trader();
  });
  after(() => o.close());

  const makeHook = (body: Record<string, unknown>) =>
    makeHookOf(o.t.app, trader.headers, { name: 'trend', mode: 'live', ...body });
  const post = (hook: MadeHook, fields: Record<string, unknown>) =>
    postAlert(o.t.app, hook.id, JSON.stringify({ secret: hook.secret, symbol: 'BTCUSDT', action: 'buy', ...fields }));
  const sent = () => o.book.of(trader.account.apiKey).length;
  const claimOf = async (hookId: string, alertKey: string) =>
    (
      await o.t.database.rows<{ order_id: string | null; alert: Record<string, unknown> | null }>(
        sql`SELECT order_id, alert FROM signal_alerts WHERE hook_id = ${hookId} AND alert_key = ${alertKey}`,
      )
    )[0];
  const ordersOf = async (hookId: string, alertKey: string) =>
    (
      await o.t.database.rows<{ id: string }>(
        sql`SELECT id FROM orders WHERE idempotency_key = ${`signal:${hookId}:${alertKey}`}`,
      )
    ).map((row) => row.id);
  const hookOf = (hookId: string) => listedHook(o.t.app, trader.headers, hookId);
  const refusedEvents = async (hookId: string) =>
    o.t.database.rows<{ data: { status: number; reason: string } }>(
      sql`SELECT data FROM stream_events WHERE type = 'signal.refused' AND data->>'hook_id' = ${hookId}`,
    );
  /** A buy of 0.001 BTC at market, fired `firedAgoMs` before now. */
  const owed = (firedAgoMs = 0, size: OwedAlert['size'] = { amount: '0.001' }, symbol = 'BTCUSDT'): OwedAlert => ({
    symbol,
    side: 'buy',
    type: 'market',
    size,
    price: null,
    firedAt: new Date(o.clock.now().getTime() - firedAgoMs).toISOString(),
  });
  /** The claim as a copy leaves it when its process dies after answering the alert, before its order. */
  const stoppedCopy = async (hookId: string, alertKey: string, alert: OwedAlert) => {
    const now = o.clock.now();
    const claim = await createSignalsRepository(o.t.database.db).claim(hookId, alertKey, now, now, alert);
    assert.ok('claimed' in claim && !claim.takenOver);
  };

  it('keeps the owed order on the claim while the step runs, never the secret; the order clears it', async () => {
    const hook = await makeHook({});
    // The venue takes the order and holds its answer past the alert's acknowledgement.
    o.book.fault('slow-after', { ms: 1_000, apiKey: trader.account.apiKey });
    const answered = await post(hook, { amount: '0.002', id: 'held' });
    assert.equal(answered.statusCode, 202, answered.body);
    assert.equal(answered.json<{ order_id: string | null }>().order_id, null, 'answered before the order');
    const running = await claimOf(hook.id, 'held');
    assert.equal(running?.order_id, null);
    assert.deepEqual(
      { ...running?.alert, firedAt: undefined },
      { symbol: 'BTCUSDT', side: 'buy', type: 'market', size: { amount: '0.002' }, price: null, firedAt: undefined },
    );
    assert.ok(!JSON.stringify(running?.alert).includes(hook.secret), 'the secret is not kept');
    await waitFor(async () => (await claimOf(hook.id, 'held'))?.order_id != null, 'the order to be recorded');
    assert.equal((await claimOf(hook.id, 'held'))?.alert, null, 'nothing owed once the order is made');
    assert.deepEqual((await runJob(o.t.app, JOB)).result, NONE);
  });

  it('claims an alert without an id under its receipt, so that it too is owed until its order', async () => {
    const hook = await makeHook({});
    const answered = await post(hook, { amount: '0.001' });
    assert.equal(answered.statusCode, 202, answered.body);
    const orderId = answered.json<{ order_id: string }>().order_id;
    const claims = await o.t.database.rows<{ alert_key: string; order_id: string; alert: unknown }>(
      sql`SELECT alert_key, order_id, alert FROM signal_alerts WHERE hook_id = ${hook.id}`,
    );
    assert.equal(claims.length, 1);
    assert.match(claims[0]!.alert_key, /^receipt:[0-9a-f-]{36}$/);
    assert.equal(claims[0]!.order_id, orderId);
    assert.equal(claims[0]!.alert, null);
    assert.deepEqual(await ordersOf(hook.id, claims[0]!.alert_key), [orderId]);
    // Another copy of it is another alert, as before: nothing dedupes an alert that names no id.
    assert.equal((await post(hook, { amount: '0.001' })).statusCode, 202);
  });

  it('places a stopped copy’s alert once past the bound while within max_lag_seconds; a second run finds none', async () => {
    const hook = await makeHook({ max_lag_seconds: 86_400 });
    const before = sent();
    await stoppedCopy(hook.id, 'stopped', owed());
    o.clock.advance(bound - 10_000);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, NONE, 'the copy may still be running');
    assert.equal(sent(), before);

    o.clock.advance(10_001);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, { ...NONE, checked: 1, placed: 1 });
    const [orderId] = await ordersOf(hook.id, 'stopped');
    assert.ok(orderId, 'an order under the alert key');
    assert.deepEqual(await claimOf(hook.id, 'stopped'), { order_id: orderId, alert: null });
    assert.equal(sent(), before + 1, 'one order reached the venue');
    const order = await o.inject('GET', `/api/orders/${orderId}`, trader.headers);
    assert.equal(order.json<{ amount: string }>().amount, '0.001');
    assert.equal((await hookOf(hook.id)).alerts_accepted, 1);

    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, NONE);
    assert.equal(sent(), before + 1);
  });

  it('records the order a stopped copy had stored through the door, however old: nothing sent again', async () => {
    const hook = await makeHook({});
    const first = await post(hook, { amount: '0.001', id: 'reached' });
    assert.equal(first.statusCode, 202, first.body);
    // Answered past SIGNAL_ACK_WITHIN_MS on a busy machine without its order id: the claim names it once placed.
    await waitFor(async () => Boolean((await claimOf(hook.id, 'reached'))?.order_id), 'the alert placed');
    const orderId = (await claimOf(hook.id, 'reached'))!.order_id;
    const answered = first.json<{ order_id: string | null }>().order_id;
    if (answered !== null) assert.equal(answered, orderId, 'the answer names the order the claim does');
    const before = sent();
    // Its process died after the door stored (and sent) the order, before the claim named it.
    await o.t.database.db.execute(
      sql`UPDATE signal_alerts SET order_id = NULL, alert = ${JSON.stringify(owed())}::jsonb
          WHERE hook_id = ${hook.id} AND alert_key = 'reached'`,
    );
    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, { ...NONE, checked: 1, recorded: 1 });
    assert.deepEqual(await claimOf(hook.id, 'reached'), { order_id: orderId, alert: null });
    assert.deepEqual(await ordersOf(hook.id, 'reached'), [orderId]);
    assert.equal(sent(), before, 'nothing sent again');
    assert.equal((await refusedEvents(hook.id)).length, 0);
  });

  it('gives up an alert older than max_lag_seconds once found: nothing sent, the owner told once', async () => {
    const hook = await makeHook({ mode: 'paper', max_lag_seconds: 60 });
    await stoppedCopy(hook.id, 'late', owed());
    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, { ...NONE, checked: 1, expired: 1 });
    assert.deepEqual(await ordersOf(hook.id, 'late'), [], 'a market order minutes late is not what was asked for');
    assert.deepEqual(await claimOf(hook.id, 'late'), { order_id: null, alert: null });
    const counted = await hookOf(hook.id);
    assert.equal(counted.alerts_refused, 1);
    assert.match(counted.last_error ?? '', /^503: not placed: the server stopped while placing the alert fired at /);
    const events = await refusedEvents(hook.id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.data.status, 503);
    assert.match(events[0]!.data.reason, /more than 60 s \(max_lag_seconds\) old/);

    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, NONE, 'given up once');
    assert.equal((await refusedEvents(hook.id)).length, 1);
  });

  it('releases an alert the door refuses now and tells the owner, as an alert refused at once', async () => {
    const hook = await makeHook({ mode: 'paper', max_lag_seconds: 86_400 });
    await stoppedCopy(hook.id, 'unlisted', owed(0, { amountQuote: '50' }, 'NOPEUSDT'));
    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, { ...NONE, checked: 1, refused: 1 });
    assert.deepEqual(await ordersOf(hook.id, 'unlisted'), []);
    assert.equal(await claimOf(hook.id, 'unlisted'), undefined, 'released: a repeat may try again');
    const counted = await hookOf(hook.id);
    assert.equal(counted.alerts_refused, 1);
    assert.match(counted.last_error ?? '', /^422: /);
    assert.equal((await refusedEvents(hook.id))[0]?.data.status, 422);
  });

  it('leaves an alert owed while the venue cannot answer, and places it on a later pass', async () => {
    const hook = await makeHook({ max_lag_seconds: 86_400 });
    const before = sent();
    // Sized in quote: placing it asks the venue for the market's last price first, which does not come.
    const alert = owed(0, { amountQuote: '50' });
    await stoppedCopy(hook.id, 'outage', alert);
    const outage = o.binance.hold({ pathPrefix: '/api/v3/ticker', times: 10 });
    o.clock.advance(bound + 1);
    const run = await runJob(o.t.app, JOB);
    outage.release();
    assert.deepEqual(run.result, { ...NONE, checked: 1, failed: 1 }, (await hookOf(hook.id)).last_error ?? '');
    assert.equal(sent(), before);
    assert.deepEqual(await claimOf(hook.id, 'outage'), { order_id: null, alert });
    assert.equal((await refusedEvents(hook.id)).length, 0, 'the owner is not told of an order still owed');

    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, { ...NONE, checked: 1, placed: 1 });
    assert.equal(sent(), before + 1, 'placed once the venue answers');
    assert.equal((await claimOf(hook.id, 'outage'))?.alert, null);
  });

  it('a send the venue takes and answers 503: the order is the one the door stored, never sent again', async () => {
    const hook = await makeHook({ max_lag_seconds: 86_400 });
    const before = sent();
    await stoppedCopy(hook.id, 'unsure', owed());
    o.book.fault('503-after', { apiKey: trader.account.apiKey });
    o.clock.advance(bound + 1);
    const first = await runJob(o.t.app, JOB);
    assert.equal(sent(), before + 1, 'the venue took it once');
    const [orderId, ...others] = await ordersOf(hook.id, 'unsure');
    assert.ok(orderId, 'the door stored the order before it was sent');
    assert.deepEqual(others, []);
    assert.deepEqual(first.result, { ...NONE, checked: 1, placed: 1 }, JSON.stringify(first));
    assert.deepEqual(await claimOf(hook.id, 'unsure'), { order_id: orderId, alert: null });

    o.clock.advance(bound + 1);
    assert.deepEqual((await runJob(o.t.app, JOB)).result, NONE);
    assert.equal(sent(), before + 1, 'never sent again');
  });

  it('is triggered with the scheduled-job secret only', async () => {
    const hook = await makeHook({ mode: 'paper', max_lag_seconds: 86_400 });
    const alert = owed();
    await stoppedCopy(hook.id, 'unasked', alert);
    o.clock.advance(bound + 1);
    assert.equal((await trigger(o.t.app, JOB, null)).statusCode, 422, 'the header is required');
    assert.equal((await trigger(o.t.app, JOB, 'not-the-secret-0123456789')).statusCode, 401);
    assert.deepEqual(await claimOf(hook.id, 'unasked'), { order_id: null, alert }, 'nothing ran');
  });
});
