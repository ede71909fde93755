// The kill switch (issue 39, point 5; decision 219): a user's halt and the platform's, the orders
// module's cancel-all run through the controls port's own listeners, the daily loss that halts by
// itself, the account-stream event, and who may lift what.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { HaltTarget } from '../../../src/modules/trading/index.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { follow } from '../../helpers/sse-client.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe('trading halts', () => {
  const clock = shiftedClock();
  let t: TestApp;
  let second: TestApp;
  let base: string;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  /** What the registered listener was called with, in order. */
  const calls: { target: HaltTarget; reason: string }[] = [];
  let listenerFails = false;

  before(async () => {
    t = await buildTestApp({ clock });
    // A second instance on the same database, as two servers behind a balancer.
    second = await buildTestApp({ clock, keepData: true });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    // The orders module's part: it registers its cancel-all and reports what it canceled.
    t.modules.trading.controls.onHalt(async (target, reason) => {
      calls.push({ target, reason });
      if (listenerFails) throw new Error('venue did not answer');
      return 'platform' in target ? { canceled: 5, failed: 0 } : { canceled: 2, failed: 0 };
    });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
  });
  after(async () => {
    await second.close();
    await t.close();
  });
  beforeEach(async () => {
    calls.length = 0;
    listenerFails = false;
    await t.database.db.execute(sql`DELETE FROM trading_halts`);
    await t.database.db.execute(sql`DELETE FROM trading_platform`);
    await t.database.db.execute(sql`DELETE FROM trading_limits`);
  });

  const post = (url: string, user: TestUser | null, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: user ? user.headers : {}, payload });
  const status = async (user: TestUser, app: TestApp = t) =>
    (await app.app.inject({ method: 'GET', url: '/api/trading/status', headers: user.headers })).json();
  const audited = async (action: string) =>
    (await t.database.rows(sql`SELECT 1 FROM audit_log WHERE action = ${action}`)).length;

  it('halts: refuses from then on, cancels through the listeners, and answers what they canceled', async () => {
    const stream = follow(`${base}/api/stream`, { headers: alice.headers });
    try {
      await stream.opened;
      const halted = await post('/api/trading/halt', alice, { reason: 'going on holiday' });
      assert.equal(halted.statusCode, 200, halted.body);
      const answer = halted.json();
      assert.equal(answer.halted, true);
      assert.equal(answer.halted_by, 'user');
      assert.equal(answer.reason, 'going on holiday');
      assert.equal(answer.until, null);
      assert.equal(answer.canceled_orders, 2);
      assert.equal(answer.all_canceled, true);
      assert.deepEqual(calls, [{ target: { userId: alice.id }, reason: 'going on holiday' }]);

      const event = await stream.waitFor((e) => e.type === 'trading.halted', 3_000, 'trading.halted');
      assert.deepEqual(event.data.data, { cause: 'user', reason: 'going on holiday', until: null });
    } finally {
      stream.close();
    }
    // Both instances read the halt from the database; the orders module asks the port.
    assert.equal((await status(alice, second)).halted, true);
    const seen = await t.modules.trading.controls.status(alice.id);
    assert.deepEqual([seen.halted, seen.haltedBy, seen.reason], [true, 'user', 'going on holiday']);
    assert.equal((await status(bob)).halted, false, "another user's trading goes on");

    // Halting again keeps the first halt and cancels again; one audit entry.
    const again = await post('/api/trading/halt', alice, { reason: 'second thoughts' });
    assert.equal(again.json().reason, 'going on holiday');
    assert.equal(calls.length, 2);
    assert.equal(await audited('trading.halt.start'), 1);

    const resumed = await post('/api/trading/resume', alice);
    assert.equal(resumed.statusCode, 200, resumed.body);
    assert.deepEqual(resumed.json(), { halted: false, halted_by: null, reason: null, halted_at: null, until: null });
    assert.equal((await status(alice, second)).halted, false);
    assert.equal(await audited('trading.halt.end'), 1);
    assertDetail(await post('/api/trading/resume', alice), 409, 'Trading is not halted');
  });

  it('stays halted when a listener fails, and says not everything was canceled', async () => {
    listenerFails = true;
    const halted = await post('/api/trading/halt', alice, { reason: 'panic' });
    assert.equal(halted.statusCode, 200, halted.body);
    assert.equal(halted.json().all_canceled, false);
    assert.equal(halted.json().canceled_orders, 0);
    assert.equal((await status(alice)).halted, true);
  });

  it('halts the whole platform for admins only; users cannot lift it, and their own halts outlast it', async () => {
    assertDetail(await post('/api/admin/trading/halt', alice, { reason: 'no' }), 403);
    const halted = await post('/api/admin/trading/halt', admin, { reason: 'venue incident' });
    assert.equal(halted.statusCode, 200, halted.body);
    assert.equal(halted.json().halted_by, 'platform');
    assert.equal(halted.json().canceled_orders, 5);
    assert.deepEqual(calls, [{ target: { platform: true }, reason: 'venue incident' }]);

    for (const app of [t, second]) {
      const seen = await status(bob, app);
      assert.equal(seen.halted_by, 'platform');
      assert.equal(seen.reason, 'venue incident');
    }
    assertDetail(
      await post('/api/trading/resume', bob),
      403,
      'Trading is halted by the platform; only an admin can resume it',
    );
    assertDetail(await post('/api/admin/trading/resume', bob), 403);

    // Alice's own halt under the platform's: she may lift hers; the platform's still holds.
    await post('/api/trading/halt', alice, { reason: 'mine' });
    assert.equal((await status(alice)).halted_by, 'platform', "the platform's halt is named first");
    const lifted = await post('/api/trading/resume', alice);
    assert.equal(lifted.statusCode, 200);
    assert.equal(lifted.json().halted_by, 'platform');

    await post('/api/trading/halt', alice, { reason: 'mine again' });
    const resumed = await post('/api/admin/trading/resume', admin);
    assert.equal(resumed.statusCode, 200, resumed.body);
    assert.equal(resumed.json().halted, false);
    assert.equal((await status(bob, second)).halted, false);
    assert.equal((await status(alice)).reason, 'mine again', 'her own halt stays');
    assertDetail(await post('/api/admin/trading/resume', admin), 409, 'Trading is not halted by the platform');
    assert.equal(await audited('trading.platform_halt.start'), 1);
    assert.equal(await audited('trading.platform_halt.end'), 1);
  });

  it('checks an order against the limits in force', async () => {
    const { controls } = t.modules.trading;
    await t.app.inject({
      method: 'PUT',
      url: '/api/admin/trading/limits',
      headers: admin.headers,
      payload: { max_order_notional: '500' },
    });
    const candidate = {
      exchange: 'binance',
      symbol: 'BTC/USDT',
      side: 'buy' as const,
      type: 'limit' as const,
      amount: '0.01',
      price: '60000',
      lastPrice: '60000',
      notional: '600',
    };
    const refused = await controls.check(alice.id, candidate, { openOrders: 0, ordersLastMinute: 0 });
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok && refused.limit === 'max_order_notional');
    assert.deepEqual(
      await controls.check(alice.id, { ...candidate, notional: '500' }, { openOrders: 0, ordersLastMinute: 0 }),
      {
        ok: true,
      },
    );
  });

  it('answers 401 without a token, 422 without a reason, and 403 to a token without trade:write', async () => {
    assertDetail(await post('/api/trading/halt', null, { reason: 'x' }), 401, 'Not authenticated');
    assertDetail(await post('/api/trading/resume', null), 401, 'Not authenticated');
    assertDetail(await t.app.inject({ method: 'GET', url: '/api/trading/status' }), 401, 'Not authenticated');
    assertDetail(await post('/api/admin/trading/halt', null, { reason: 'x' }), 401, 'Not authenticated');
    assertIssue(await post('/api/trading/halt', alice, {}), ['body', 'reason'], 'missing');
    assertIssue(await post('/api/trading/halt', alice, { reason: '' }), ['body', 'reason'], 'string_too_short');

    const made = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: alice.headers,
      payload: { name: 'reader', scopes: ['trade:read'] },
    });
    const reader = { authorization: `Bearer ${made.json<{ token: string }>().token}` };
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/trading/status', headers: reader })).statusCode, 200);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/trading/halt',
      headers: reader,
      payload: { reason: 'x' },
    });
    assertDetail(refused, 403, 'This API token lacks the scope trade:write');
    assert.deepEqual(calls, [], 'nothing was halted');
  });
  it('halts by itself past the daily loss limit, until the next UTC day', async () => {
    const { controls } = t.modules.trading;
    await t.app.inject({
      method: 'PUT',
      url: '/api/trading/limits',
      headers: alice.headers,
      payload: { daily_loss_limit: '100' },
    });
    assert.equal(await controls.noteRealizedLoss(alice.id, '100'), false, 'at the limit is not past it');
    assert.equal(await controls.noteRealizedLoss(bob.id, '1000000'), false, 'no daily loss limit for bob');
    assert.deepEqual(calls, []);

    assert.equal(await controls.noteRealizedLoss(alice.id, '100.50'), true);
    const reason = 'Daily loss limit reached: the realized loss of the UTC day is 100.5, past daily_loss_limit 100';
    assert.deepEqual(calls, [{ target: { userId: alice.id }, reason }]);
    const now = clock.now();
    const nextDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    assert.deepEqual(
      { ...(await status(alice)), halted_at: null },
      {
        halted: true,
        halted_by: 'user',
        reason,
        halted_at: null,
        until: nextDay.toISOString(),
      },
    );
    assert.equal(await controls.noteRealizedLoss(alice.id, '150'), false, 'already halted: no second halt');
    assert.equal(calls.length, 1);
    assert.equal(await audited('trading.halt.daily_loss'), 1);

    assertDetail(
      await post('/api/trading/resume', alice),
      409,
      `Trading is halted by the daily loss limit until ${nextDay.toISOString()}; it cannot be resumed before then`,
    );
    // Last in this file: the access tokens signed before expire with the day.
    clock.advance(nextDay.getTime() - now.getTime());
    assert.equal((await controls.status(alice.id)).halted, false, 'the halt ends at the next UTC day');
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: alice.email, password: alice.password },
    });
    const headers = { authorization: `Bearer ${login.json<{ access_token: string }>().access_token}` };
    assertDetail(
      await t.app.inject({ method: 'POST', url: '/api/trading/resume', headers }),
      409,
      'Trading is not halted',
    );
  });
});
