// GET/PUT /api/trading/limits and the admin's caps (issue 39, point 5; decision 218): the platform's
// defaults until a user changes them, caps that hold for everyone, 422s naming the field, scopes.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const URL = '/api/trading/limits';
const CAPS = '/api/admin/trading/limits';
const DEFAULTS = {
  max_order_notional: '25000',
  max_open_orders: 20,
  max_orders_per_minute: 60,
  price_band_percent: '10',
  daily_loss_limit: null,
};
const NONE = {
  max_order_notional: null,
  max_open_orders: null,
  max_orders_per_minute: null,
  price_band_percent: null,
  daily_loss_limit: null,
};

describe('trading limits', () => {
  let t: TestApp;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    t = await buildTestApp({
      env: { TRADING_MAX_ORDER_NOTIONAL: '25000.00', TRADING_MAX_OPEN_ORDERS: '20', TRADING_DAILY_LOSS_LIMIT: 'none' },
    });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });
  // Limits and caps are kept between requests; no operation restores the defaults.
  beforeEach(async () => {
    await t.database.db.execute(sql`DELETE FROM trading_limits`);
    await t.database.db.execute(sql`DELETE FROM trading_platform`);
  });

  const call = (method: 'GET' | 'PUT', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, payload });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const apiToken = async (user: TestUser, scopes: string[]) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: user.headers,
      payload: { name: scopes.join(' ') || 'none', scopes },
    });
    assert.equal(response.statusCode, 201, response.body);
    return bearer(response.json<{ token: string }>().token);
  };

  it("answers the platform's defaults until the user changes them, with no caps", async () => {
    const response = await call('GET', URL, alice.headers);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { ...DEFAULTS, own: DEFAULTS, caps: NONE });
  });

  it('changes the fields given, keeps the others, writes decimals plainly, and audits the change', async () => {
    const response = await call('PUT', URL, alice.headers, {
      max_order_notional: '1500.50',
      max_orders_per_minute: 5,
      daily_loss_limit: '300',
      price_band_percent: null,
    });
    assert.equal(response.statusCode, 200, response.body);
    const expected = {
      ...DEFAULTS,
      max_order_notional: '1500.5',
      max_orders_per_minute: 5,
      daily_loss_limit: '300',
      price_band_percent: null,
    };
    assert.deepEqual(response.json(), { ...expected, own: expected, caps: NONE });
    assert.deepEqual((await call('GET', URL, alice.headers)).json().own, expected);
    // Another user's limits are theirs alone.
    assert.deepEqual((await call('GET', URL, bob.headers)).json().own, DEFAULTS);

    const [entry] = await t.database.rows<{ action: string; actor_id: string; details: Record<string, unknown> }>(
      sql`SELECT action, actor_id, details FROM audit_log WHERE action = 'trading.limits.update'`,
    );
    assert.equal(entry!.actor_id, alice.id);
    assert.deepEqual(entry!.details, {
      changes: {
        max_order_notional: { from: '25000', to: '1500.5' },
        max_orders_per_minute: { from: 60, to: 5 },
        price_band_percent: { from: '10', to: null },
        daily_loss_limit: { from: null, to: '300' },
      },
    });
  });

  it("holds every user's limits to the admin's caps and refuses a value above one", async () => {
    await call('PUT', URL, alice.headers, { max_order_notional: '9000', max_open_orders: null });
    const capped = await call('PUT', CAPS, admin.headers, { max_order_notional: '5000', max_open_orders: 10 });
    assert.equal(capped.statusCode, 200, capped.body);
    const caps = { ...NONE, max_order_notional: '5000', max_open_orders: 10 };
    assert.deepEqual(capped.json(), { ...caps, defaults: DEFAULTS });

    const view = (await call('GET', URL, alice.headers)).json();
    assert.equal(view.max_order_notional, '5000', 'the cap is tighter than her own 9000');
    assert.equal(view.max_open_orders, 10, 'no limit of her own: the cap holds');
    assert.equal(view.own.max_order_notional, '9000');
    assert.deepEqual(view.caps, caps);

    const above = await call('PUT', URL, alice.headers, { max_order_notional: '5000.01', max_open_orders: 11 });
    assert.equal(above.statusCode, 422);
    assertIssue(above, ['body', 'max_order_notional'], 'less_than_equal');
    assertIssue(above, ['body', 'max_open_orders'], 'less_than_equal');
    assert.equal((await call('GET', URL, alice.headers)).json().own.max_order_notional, '9000', 'nothing stored');

    const lowered = await call('PUT', URL, alice.headers, { max_order_notional: '100' });
    assert.equal(lowered.json().max_order_notional, '100', 'below the cap, her own holds');
    assert.equal((await call('GET', CAPS, admin.headers)).json().max_order_notional, '5000');
    assert.equal(
      (await t.database.rows(sql`SELECT 1 FROM audit_log WHERE action = 'trading.limit_caps.update'`)).length,
      1,
    );
  });

  it('answers 422 in the Pydantic shape naming each bad field', async () => {
    const bad = await call('PUT', URL, alice.headers, {
      max_order_notional: '-5',
      price_band_percent: '150',
      daily_loss_limit: 'lots',
    });
    assert.equal(bad.statusCode, 422);
    assertIssue(bad, ['body', 'max_order_notional'], 'greater_than');
    assertIssue(bad, ['body', 'price_band_percent'], 'less_than_equal');
    assertIssue(bad, ['body', 'daily_loss_limit'], 'decimal_parsing');

    assertIssue(
      await call('PUT', URL, alice.headers, { max_open_orders: 0 }),
      ['body', 'max_open_orders'],
      'greater_than_equal',
    );
    assertIssue(
      await call('PUT', URL, alice.headers, { max_order_notional: 100 }),
      ['body', 'max_order_notional'],
      'string_type',
    );
    assertIssue(
      await call('PUT', CAPS, admin.headers, { price_band_percent: '0' }),
      ['body', 'price_band_percent'],
      'greater_than',
    );
    assert.deepEqual((await call('GET', URL, alice.headers)).json().own, DEFAULTS, 'nothing stored');
  });

  it('answers 401 without a token, 403 to a token without the scope, and admin routes only to admins', async () => {
    assertDetail(await call('GET', URL, {}), 401, 'Not authenticated');
    assertDetail(await call('PUT', URL, {}, { max_open_orders: 3 }), 401, 'Not authenticated');
    assertDetail(await call('GET', CAPS, alice.headers), 403);
    assertDetail(await call('PUT', CAPS, alice.headers, { max_open_orders: 3 }), 403);

    const reader = await apiToken(alice, ['trade:read']);
    assert.equal((await call('GET', URL, reader)).statusCode, 200);
    assertDetail(
      await call('PUT', URL, reader, { max_open_orders: 3 }),
      403,
      'This API token lacks the scope trade:write',
    );
    const writer = await apiToken(alice, ['trade:write']);
    assert.equal((await call('PUT', URL, writer, { max_open_orders: 3 })).statusCode, 200);
    const other = await apiToken(alice, ['account:read']);
    assertDetail(await call('GET', URL, other), 403, 'This API token lacks the scope trade:read');
  });
});
