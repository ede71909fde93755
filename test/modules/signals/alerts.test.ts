// TradingView alerts (issue 40, point 2), up to the order step: both body forms, the secret (401,
// whatever the hook), rotation, the size limit (413), unreadable or stale alerts (422), the throttles
// (429), the counters, the owner told of refusals with the right secret, and 503 while no order path
// is wired. The order step itself is proven in alerts-orders.test.ts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { alertRequest, fillPlaceholders, timenow } from '../../fakes/tradingview.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { follow } from '../../helpers/sse-client.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { listedHook, makeHook as makeHookOf, postAlert, useSignalsApp, type MadeHook } from './signals-fixtures.ts';

describe('TradingView alerts', () => {
  const { clock, t, alice } = useSignalsApp({
    SIGNAL_HOOK_LIMIT_PER_MINUTE: '8',
    SIGNAL_ADDRESS_LIMIT_PER_MINUTE: '12',
  });
  beforeEach(async () => {
    await t.database.db.execute(sql`DELETE FROM signal_hooks`);
  });

  const makeHook = (payload?: object) => makeHookOf(t.app, alice.headers, payload);
  const post = (hookId: string, message: string, remoteAddress?: string) =>
    postAlert(t.app, hookId, message, remoteAddress);
  const json = (hook: MadeHook, fields: object = {}) =>
    JSON.stringify({ secret: hook.secret, symbol: 'BTCUSDT', action: 'buy', amount: '0.001', ...fields });
  /** The alert passed every check and made its order. */
  const placed = (response: { statusCode: number; body: string; json<T>(): T }) => {
    assert.equal(response.statusCode, 202, response.body);
    assert.match(response.json<{ order_id: string }>().order_id, /^[0-9a-f-]{36}$/);
  };
  const counters = (hookId: string) => listedHook(t.app, alice.headers, hookId);

  it('reads a JSON alert with TradingView placeholders and makes its paper order (202)', async () => {
    const hook = await makeHook();
    const message = fillPlaceholders(
      `{"secret": "${hook.secret}", "symbol": "{{ticker}}", "action": "buy", "amount_quote": "25", "id": "{{strategy.order.id}}", "time": "{{timenow}}"}`,
      { timenow: clock.now() },
    );
    const response = await post(hook.id, message);
    placed(response);
    const after = await counters(hook.id);
    assert.equal(after.alerts_accepted, 1);
    assert.equal(after.alerts_refused, 0);
    assert.equal(after.last_error, null);
  });

  it('reads OctoBot-style KEY=value lines (text/plain), a percent volume and a limit price', async () => {
    const hook = await makeHook();
    const message = `SECRET=${hook.secret}\nEXCHANGE=binance\nSYMBOL=BTC/USDT\nSIGNAL=BUY\nORDER_TYPE=LIMIT\nVOLUME=1%\nPRICE=65000.5\nID=exit-1\nTAG=mine`;
    assert.equal(alertRequest(message).headers['content-type'], 'text/plain; charset=utf-8');
    placed(await post(hook.id, message));
  });

  it('refuses a wrong secret, an unknown hook and a deleted one alike (401), counting only the refusal', async () => {
    const hook = await makeHook();
    const wrong = await post(hook.id, json(hook, { secret: 'tvs_guess' }));
    assertDetail(wrong, 401, 'Invalid signal hook or secret');
    assertDetail(await post(hook.id, json(hook, { secret: undefined })), 401);
    assertDetail(await post('00000000-0000-4000-8000-000000000000', json(hook)), 401, 'Invalid signal hook or secret');
    assertDetail(await post('not-a-hook', json(hook)), 401, 'Invalid signal hook or secret');
    const after = await counters(hook.id);
    assert.equal(after.alerts_refused, 2);
    assert.equal(after.alerts_accepted, 0);
    assert.equal(after.last_error, null, 'without the secret nothing but the count moves');
    const gone = await makeHook({ name: 'gone' });
    await t.app.inject({ method: 'DELETE', url: `/api/signals/hooks/${gone.id}`, headers: alice.headers });
    assertDetail(await post(gone.id, json(gone)), 401, 'Invalid signal hook or secret');
    const events = await t.database.rows(
      sql`SELECT 1 FROM stream_events WHERE type = 'signal.refused' AND data->>'hook_id' = ${hook.id}`,
    );
    assert.equal(events.length, 0, 'whoever lacks the secret cannot reach the owner');
  });

  it('refuses the old secret at once after a rotation; the new one passes', async () => {
    const hook = await makeHook();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/signals/hooks/${hook.id}/rotate`,
      headers: alice.headers,
    });
    const fresh = { id: hook.id, secret: rotated.json<{ secret: string }>().secret };
    assertDetail(await post(hook.id, json(hook)), 401);
    placed(await post(hook.id, json(fresh)));
  });

  it('refuses an alert from outside allowed_ips as a wrong secret would', async () => {
    const hook = await makeHook({ name: 'tv only', allowed_ips: ['52.89.214.238', '34.212.75.30/32'] });
    assertDetail(await post(hook.id, json(hook), '10.1.2.3'), 401);
    placed(await post(hook.id, json(hook), '52.89.214.238'));
    placed(await post(hook.id, json(hook), '::ffff:34.212.75.30'));
  });

  it('refuses a body over 16 KiB (413) and counts it on its hook', async () => {
    const hook = await makeHook();
    const response = await post(hook.id, json(hook, { note: 'x'.repeat(16 * 1024) }));
    assert.equal(response.statusCode, 413, response.body);
    assert.equal((await counters(hook.id)).alerts_refused, 1);
  });

  it('throttles oversized bodies per address before counting them: past the limit 429 and no write', async () => {
    const hook = await makeHook();
    const address = newClientAddress();
    const big = json(hook, { note: 'x'.repeat(16 * 1024) });
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await post(hook.id, big, address)).statusCode);
    assert.deepEqual(statuses, [...Array(12).fill(413), 429, 429, 429]);
    // Counted on the hook within its bound of unproven alerts a minute (decision 841): 8 of the 12.
    assert.equal((await counters(hook.id)).alerts_refused, 8);
  });

  it("counts wrong secrets apart from the hook's limit: past a flood of them, the owner's alert passes", async () => {
    const hook = await makeHook();
    // From many addresses, more than the hook's 8 a minute: each refused (401), only 8 of them written.
    for (let i = 0; i < 10; i++)
      assertDetail(await post(hook.id, json(hook, { secret: `tvs_guess${i}` })), 401, 'Invalid signal hook or secret');
    // From one address: past 8 refused alerts a minute that sender gets 429, for any hook, known or not.
    const address = newClientAddress();
    const fromOne: number[] = [];
    for (let i = 0; i < 9; i++)
      fromOne.push((await post(hook.id, json(hook, { secret: 'tvs_guess' }), address)).statusCode);
    assert.deepEqual(fromOne, [...Array(8).fill(401), 429]);
    const unknown = await post('00000000-0000-4000-8000-000000000000', json(hook), address);
    assertDetail(unknown, 429, 'Too many refused alerts from this address; try again later');
    assert.ok(Number(unknown.headers['retry-after']) >= 1);
    // The owner's alerts pass, from another address and from that very one (TradingView's are shared).
    placed(await post(hook.id, json(hook)));
    placed(await post(hook.id, json(hook), address));
    const after = await counters(hook.id);
    assert.equal(after.alerts_refused, 8, 'refusals past the bound are not written');
    assert.equal(after.alerts_accepted, 2);
    assert.equal(after.last_error, null);
  });

  it('refuses a body of neither form, and an unknown action, field by field (422), and tells the owner', async () => {
    const hook = await makeHook();
    const stream = follow(`${await t.app.listen({ host: '127.0.0.1', port: 0 })}/api/stream`, {
      headers: alice.headers,
    });
    try {
      await stream.opened;
      assertIssue(await post(hook.id, 'buy BTC now please'), ['body'], 'json_invalid');
      assertIssue(await post(hook.id, '[1, 2]'), ['body'], 'json_invalid');
      assertIssue(await post(hook.id, json(hook, { action: 'hodl' })), ['body', 'action'], 'enum');
      const text = await post(hook.id, `SECRET=${hook.secret}\nSYMBOL=BTCUSDT\nSIGNAL=MAYBE\nVOLUME=1`);
      assertIssue(text, ['body', 'action'], 'enum');
      const several = await post(hook.id, json(hook, { symbol: undefined, amount: '-1', type: 'stop' }));
      assertIssue(several, ['body', 'symbol'], 'missing');
      assertIssue(several, ['body', 'amount'], 'greater_than');
      assertIssue(several, ['body', 'type'], 'enum');
      assertIssue(await post(hook.id, json(hook, { type: 'limit' })), ['body', 'price'], 'missing');
      const event = await stream.waitFor((e) => e.type === 'signal.refused', 3_000, 'signal.refused');
      const data = event.data.data as { hook_id: string; status: number };
      assert.equal(data.hook_id, hook.id);
      assert.equal(data.status, 422);
    } finally {
      stream.close();
    }
    assert.equal((await counters(hook.id)).alerts_refused, 6);
  });

  it('refuses text no database column can hold in the fields it reads, in either form (422), as every route does', async () => {
    const hook = await makeHook();
    const nul = assertIssue(await post(hook.id, json(hook, { id: 'a\u0000b' })), ['body', 'id'], 'value_error');
    assert.match(nul.msg, /NUL character/);
    assert.equal(nul.input, 'a\u0000b');
    const text = await post(hook.id, `SECRET=${hook.secret}\nSYMBOL=BTCUSDT\nSIGNAL=BUY\nVOLUME=0.001\nID=x\u0000y`);
    assertIssue(text, ['body', 'id'], 'value_error');
    assertIssue(await post(hook.id, json(hook, { id: '\ud800' })), ['body', 'id'], 'string_unicode');
    // One issue a field: the NUL, not the pattern it breaks too.
    const symbol = await post(hook.id, json(hook, { symbol: 'BTC\u0000USDT' }));
    assert.equal(symbol.json<{ detail: unknown[] }>().detail.length, 1, symbol.body);
    assertIssue(symbol, ['body', 'symbol'], 'value_error');
    const after = await counters(hook.id);
    assert.equal(after.alerts_refused, 4);
    assert.match(after.last_error ?? '', /^422: symbol: Value error, text must not contain the NUL character/);
    placed(await post(hook.id, json(hook, { id: 'a-b' })));
  });

  it("keeps the owner's last error from alerts that prove nothing: an unreadable body, an oversized one", async () => {
    const hook = await makeHook();
    const old = new Date(clock.now().getTime() - 10 * 60_000);
    assertIssue(await post(hook.id, json(hook, { time: timenow(old) })), ['body', 'time'], 'value_error');
    const owners = (await counters(hook.id)).last_error;
    assert.match(owners ?? '', /^422: time/);
    // A stranger who knows the URL: bodies that carry no secret to prove, each refused and counted.
    assertIssue(await post(hook.id, 'buy BTC now please'), ['body'], 'json_invalid');
    assert.equal((await post(hook.id, 'x'.repeat(16 * 1024 + 1))).statusCode, 413);
    const after = await counters(hook.id);
    assert.equal(after.alerts_refused, 3);
    assert.equal(after.last_error, owners, "the owner's last error stays");
  });

  it('refuses an alert fired longer ago than max_lag_seconds as stale (422)', async () => {
    const hook = await makeHook({ name: 'quick', max_lag_seconds: 30 });
    const old = new Date(clock.now().getTime() - 31_000);
    const stale = await post(hook.id, json(hook, { time: timenow(old), id: 'a' }));
    const issue = assertIssue(stale, ['body', 'time'], 'value_error');
    assert.match(issue.msg, /stale/);
    assertIssue(await post(hook.id, json(hook, { time: 'yesterday' })), ['body', 'time'], 'datetime_parsing');
    placed(await post(hook.id, json(hook, { time: timenow(new Date(clock.now().getTime() - 10_000)) })));
    const after = await counters(hook.id);
    assert.equal(after.alerts_refused, 2);
    assert.match(after.last_error ?? '', /^422: time/);
    assert.equal(after.alerts_accepted, 1);
  });

  it('throttles per hook and per address (429 with Retry-After), counting the refusals', async () => {
    const hook = await makeHook();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await post(hook.id, json(hook))).statusCode);
    assert.deepEqual(statuses, [202, 202, 202, 202, 202, 202, 202, 202, 429]);
    const throttled = await post(hook.id, json(hook));
    assertDetail(throttled, 429, 'Too many alerts for this hook; try again later');
    assert.ok(Number(throttled.headers['retry-after']) >= 1);
    assert.equal((await counters(hook.id)).alerts_refused, 2);

    const other = await makeHook({ name: 'other' });
    const third = await makeHook({ name: 'third' });
    const address = newClientAddress();
    const fromOne: number[] = [];
    // With their secrets (refused for their action): unproven alerts have a smaller bound of their own.
    const unreadable = (hook: MadeHook) => json(hook, { action: 'hodl' });
    for (let i = 0; i < 13; i++) {
      const to = i % 2 ? other : third;
      fromOne.push((await post(to.id, unreadable(to), address)).statusCode);
    }
    assert.equal(fromOne.at(-1), 429);
    assertDetail(
      await post(other.id, unreadable(other), address),
      429,
      'Too many alerts from this address; try again later',
    );
    assert.ok(fromOne.slice(0, 12).every((status) => status !== 429));
  });
});

describe("TradingView's addresses carry every user's alerts (decision 1090)", () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      env: {
        SIGNAL_HOOK_LIMIT_PER_MINUTE: '4',
        SIGNAL_ADDRESS_LIMIT_PER_MINUTE: '6',
        SIGNAL_OWNER_LIMIT_PER_MINUTE: '6',
      },
    });
  });
  after(async () => {
    await t.close();
  });

  const hookOf = async (user: TestUser, name: string): Promise<MadeHook> => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/signals/hooks',
      headers: user.headers,
      payload: { name },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<MadeHook>();
  };
  // With the hook's secret, refused for its action: proven, counted on the hook and its owner, no order needed.
  const post = (hook: MadeHook, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/signals/tradingview/${hook.id}`,
      ...alertRequest(JSON.stringify({ secret: hook.secret, symbol: 'BTCUSDT', action: 'hodl', amount: '0.001' })),
      remoteAddress,
    });

  it("bounds an owner over all of their hooks, and no owner's alerts spend another's", async () => {
    const bob = await signIn(t.app, t.database);
    const carol = await signIn(t.app, t.database);
    const bobs = [await hookOf(bob, 'one'), await hookOf(bob, 'two'), await hookOf(bob, 'three')];
    const carols = await hookOf(carol, 'mine');
    const tradingView = '52.89.214.238';
    // Seven of Bob's alerts over three hooks, none past its hook's 4: the seventh is past his 6 a minute.
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post(bobs[i % 3]!, tradingView)).statusCode);
    assert.deepEqual(statuses, [422, 422, 422, 422, 422, 422, 429]);
    assertDetail(await post(bobs[0]!, tradingView), 429, "Too many alerts for this account's hooks; try again later");
    // From the same TradingView address (also written IPv4-mapped), past its 6 a minute: Carol's are read.
    assert.equal((await post(carols, tradingView)).statusCode, 422);
    assert.equal((await post(carols, '::ffff:52.89.214.238')).statusCode, 422);
    // An ordinary address is still one sender: past its 6 alerts a minute, 429 whoever's hook it names.
    const address = newClientAddress();
    const fromOne: number[] = [];
    for (let i = 0; i < 7; i++) {
      const other = await signIn(t.app, t.database);
      fromOne.push((await post(await hookOf(other, 'x'), address)).statusCode);
    }
    assert.deepEqual(fromOne, [422, 422, 422, 422, 422, 422, 429]);
  });
});
