// Who an alert's order is for, and what its hook names: an alert places an order only for an account that
// may trade now (a suspended or deleted owner's hooks place nothing, as their bearer tokens do not), and a
// hook names a venue the order path knows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timenow } from '../../fakes/tradingview.ts';
import { sql } from 'drizzle-orm';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { newClientAddress, signIn, type TestUser } from '../../helpers/test-app.ts';
import { makeHook as makeHookOf, postAlert, useSignalsApp, type MadeHook } from './signals-fixtures.ts';

describe('an alert’s owner and venue', () => {
  const { clock, t, alice } = useSignalsApp({ SIGNAL_ACK_WITHIN_MS: '60000' });

  const makeHook = (user: TestUser, payload?: object) => makeHookOf(t.app, user.headers, payload);
  const post = (hook: MadeHook, fields: object = {}) =>
    postAlert(
      t.app,
      hook.id,
      JSON.stringify({
        secret: hook.secret,
        symbol: 'BTCUSDT',
        action: 'buy',
        amount: '0.001',
        time: timenow(clock.now()),
        ...fields,
      }),
    );
  const setStatus = (user: TestUser, status: 'active' | 'suspended' | 'deleted') =>
    t.modules.admin.users.updateUser(user.id, { status }, { id: null });
  const ordersOf = async (user: TestUser) =>
    (await t.app.inject({ method: 'GET', url: '/api/orders', headers: user.headers })).json<{ total: number }>().total;

  it('places nothing for a suspended or deleted owner; once active again, the hook places', async () => {
    const bob = await signIn(t.app, t.database);
    const hook = await makeHook(bob);
    assert.equal((await post(hook, { id: 'first' })).statusCode, 202);
    await setStatus(bob, 'suspended');
    const refused = { id: 'while-suspended', time: timenow(clock.now()) };
    assertDetail(await post(hook, refused), 403, "The hook owner's account is suspended");
    await setStatus(bob, 'deleted');
    assertDetail(await post(hook, { id: 'while-deleted' }), 403, "The hook owner's account is deleted");
    await setStatus(bob, 'active');
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: bob.email, password: bob.password },
      remoteAddress: newClientAddress(),
    });
    assert.equal(login.statusCode, 200, login.body);
    const again = {
      ...bob,
      headers: { authorization: `Bearer ${login.json<{ access_token: string }>().access_token}` },
    };
    assert.equal(await ordersOf(again), 1, 'no order was made while the account could not trade');
    const back = await post(hook, refused);
    assert.equal(back.statusCode, 202, 'the refused alert was not claimed: it places once the account is back');
    assert.equal(await ordersOf(again), 2);
  });

  it('refuses a hook whose exchange is no venue (422 naming the field), and stores none', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/api/signals/hooks', headers: alice.headers })).json<{
      hooks: unknown[];
    }>().hooks.length;
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/signals/hooks',
      headers: alice.headers,
      payload: { name: 'nowhere', exchange: 'nope' },
    });
    assertIssue(made, ['body', 'exchange'], 'value_error');
    const after = (await t.app.inject({ method: 'GET', url: '/api/signals/hooks', headers: alice.headers })).json<{
      hooks: unknown[];
    }>().hooks.length;
    assert.equal(after, before);
    await makeHook(alice, { name: 'kraken', exchange: 'Kraken' });
  });

  it('answers the order the door made when its claim cannot record it, and a repeat answers that order too', async () => {
    // A real fault of the database, for this alert's claim only: the order id cannot be written on it.
    await t.database.db.execute(sql`
      CREATE FUNCTION refuse_order_on_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the claim cannot take its order now'; END $$`);
    await t.database.db.execute(sql`
      CREATE TRIGGER refuse_order_on_claim BEFORE UPDATE OF order_id ON signal_alerts FOR EACH ROW
      WHEN (NEW.alert_key LIKE 'unrecorded%') EXECUTE FUNCTION refuse_order_on_claim()`);
    try {
      const hook = await makeHook(alice, { name: 'percent' });
      const before = await ordersOf(alice);
      // Sized in percent of the free quote: sized again after its own order, it comes out otherwise.
      const alert = { id: 'unrecorded', amount: undefined, percent: '1', time: timenow(clock.now()) };
      const first = await post(hook, alert);
      assert.equal(first.statusCode, 202, first.body);
      const orderId = first.json<{ order_id: string }>().order_id;
      assert.match(orderId, /^[0-9a-f-]{36}$/);
      const repeat = await post(hook, alert);
      assert.equal(repeat.statusCode, 200, repeat.body);
      assert.equal(repeat.json<{ order_id: string }>().order_id, orderId);
      assert.equal(await ordersOf(alice), before + 1, 'one order for the alert');
    } finally {
      await t.database.db.execute(sql`DROP TRIGGER refuse_order_on_claim ON signal_alerts`);
      await t.database.db.execute(sql`DROP FUNCTION refuse_order_on_claim()`);
    }
  });
});
