import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import { fixedClock, type Clock } from '../../../src/platform/clock.ts';
import { stripeDelivery, stripeEvent } from '../../fakes/webhook-senders.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertValidation } from './admin-fixtures.ts';

const PAYMENTS_SECRET = 'whsec_stats_payments_0123456789';

/** Records a payment the way it arrives: a signed Stripe invoice.paid, the amount in minor units. */
async function pay(t: TestApp, clock: Clock, invoiceId: string, amountPaid: number, currency: string) {
  const paidAt = Math.floor(clock.now().getTime() / 1000);
  const invoice = {
    id: invoiceId,
    object: 'invoice',
    customer: `cus_${invoiceId}`,
    amount_paid: amountPaid,
    currency,
    status: 'paid',
    status_transitions: { paid_at: paidAt },
  };
  const delivery = stripeDelivery(PAYMENTS_SECRET, stripeEvent('invoice.paid', invoice), { timestamp: paidAt });
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/webhooks/platforms/payments',
    headers: delivery.headers,
    payload: delivery.body,
  });
  assert.equal(response.json().status, 'processed', response.body);
}

describe('admin: platform statistics', () => {
  // The first second of June, UTC: a user created a millisecond earlier belongs to May.
  const clock = fixedClock('2025-06-01T00:00:05.000Z');
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    t = await buildTestApp({ clock, env: { PAYMENTS_WEBHOOK_SECRET: PAYMENTS_SECRET } });
    admin = await signIn(t.app, t.database, { role: 'admin' }); // created this month, active
  });
  after(async () => {
    await t.close();
  });

  const stats = () => t.app.inject({ method: 'GET', url: '/api/admin/stats', headers: admin.headers });

  it('answers zeros (and the admin) on an empty platform, revenue 0 with an empty ledger', async () => {
    const response = await stats();
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      totalUsers: 1,
      activeUsers: 1,
      suspendedUsers: 0,
      newUsersThisMonth: 1,
      totalRevenue: 0,
      revenueCurrency: 'USD',
      revenueByCurrency: {},
    });
  });

  it('counts users by status and this UTC month, without deleted ones, and sums the ledger exactly', async () => {
    const now = clock.now();
    const registerAt = async (at: string) => {
      clock.set(at);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: `user-${at.replace(/\D/g, '')}@example.com`, password: 'password-1' },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<{ id: string }>().id;
    };
    await registerAt('2025-05-31T23:59:59.999Z');
    await registerAt('2025-06-01T00:00:00.000Z');
    const suspended = [await registerAt('2025-06-01T00:00:01.000Z'), await registerAt('2024-12-01T00:00:00.000Z')];
    const deleted = await registerAt('2025-06-01T00:00:02.000Z');
    clock.set(now);
    for (const id of suspended) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${id}`,
        payload: { status: 'suspended' },
        headers: admin.headers,
      });
      assert.equal(response.json().status, 'suspended');
    }
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${deleted}`, headers: admin.headers })).statusCode,
      200,
    );
    await pay(t, clock, 'in_1', 10, 'usd');
    await pay(t, clock, 'in_2', 20, 'usd');
    await pay(t, clock, 'in_3', 9970, 'usd');
    assert.deepEqual((await stats()).json(), {
      totalUsers: 5,
      activeUsers: 3,
      suspendedUsers: 2,
      newUsersThisMonth: 3,
      totalRevenue: 100,
      revenueCurrency: 'USD',
      revenueByCurrency: { USD: 100 },
    });
    await pay(t, clock, 'in_4', 1, 'usd');
    assert.equal((await stats()).json().totalRevenue, 100.01);
  });

  it('adds up the settlement currency only and lists every currency beside it', async () => {
    await pay(t, clock, 'in_jpy', 5000, 'JPY');
    await pay(t, clock, 'in_eur', 999, 'eur');
    const body = (await stats()).json();
    assert.equal(body.totalRevenue, 100.01);
    assert.equal(body.revenueCurrency, 'USD');
    assert.deepEqual(body.revenueByCurrency, { EUR: 9.99, JPY: 5000, USD: 100.01 });
  });
});

describe('admin: platform statistics in another settlement currency', () => {
  it('SETTLEMENT_CURRENCY=jpy counts the yen only; a currency without payments counts 0', async () => {
    const clock = fixedClock(new Date());
    const t = await buildTestApp({
      clock,
      env: { SETTLEMENT_CURRENCY: 'jpy', PAYMENTS_WEBHOOK_SECRET: PAYMENTS_SECRET },
    });
    try {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const stats = async () =>
        (await t.app.inject({ method: 'GET', url: '/api/admin/stats', headers: admin.headers })).json();
      assert.equal((await stats()).totalRevenue, 0);
      await pay(t, clock, 'in_jpy', 5000, 'jpy');
      await pay(t, clock, 'in_usd', 4900, 'usd');
      const body = await stats();
      assert.equal(body.totalRevenue, 5000);
      assert.equal(body.revenueCurrency, 'JPY');
      assert.deepEqual(body.revenueByCurrency, { JPY: 5000, USD: 49 });
    } finally {
      await t.close();
    }
  });

  it('a SETTLEMENT_CURRENCY that is not a three-letter code stops the start', () => {
    assert.throws(
      () =>
        loadConfig({
          JWT_SECRET: 'x'.repeat(32),
          ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
          SETTLEMENT_CURRENCY: 'dollars',
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.includes('SETTLEMENT_CURRENCY must be a three-letter ISO 4217 code (got "dollars")'),
    );
  });
});

describe('admin: platform limits', () => {
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  const get = () => t.app.inject({ method: 'GET', url: '/api/admin/platform-limits', headers: admin.headers });
  const patch = (payload: unknown) =>
    t.app.inject({
      method: 'PATCH',
      url: '/api/admin/platform-limits',
      payload: payload as object,
      headers: admin.headers,
    });
  const bounds = { backtest_per_hour: [1, 100], optimize_per_hour: [1, 50], paper_transition_per_hour: [1, 20] };

  it('answers the defaults and the bounds before any change', async () => {
    const response = await get();
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      backtest_per_hour: 10,
      optimize_per_hour: 5,
      paper_transition_per_hour: 4,
      bounds,
    });
    assert.deepEqual(await t.modules.admin.getPlatformLimits(), {
      backtest_per_hour: 10,
      optimize_per_hour: 5,
      paper_transition_per_hour: 4,
    });
  });

  it('stores a change, keeps the other limits, audits it, and serves it to other modules', async () => {
    const response = await patch({ paper_transition_per_hour: 20, backtest_per_hour: 1 });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      backtest_per_hour: 1,
      optimize_per_hour: 5,
      paper_transition_per_hour: 20,
      bounds,
    });
    assert.deepEqual((await patch({ optimize_per_hour: 50 })).json(), {
      backtest_per_hour: 1,
      optimize_per_hour: 50,
      paper_transition_per_hour: 20,
      bounds,
    });
    assert.deepEqual((await get()).json(), {
      backtest_per_hour: 1,
      optimize_per_hour: 50,
      paper_transition_per_hour: 20,
      bounds,
    });
    assert.equal((await t.modules.admin.getPlatformLimits()).paper_transition_per_hour, 20);
    const activity = await t.app.inject({
      method: 'GET',
      url: `/api/admin/users/${admin.id}/activity?limit=100`,
      headers: admin.headers,
    });
    const audits = (activity.json() as { action: string; actor_id: string; details: { changes: object } }[]).filter(
      (a) => a.action === 'admin.platform_limits.update',
    );
    assert.equal(audits.length, 2);
    assert.deepEqual(audits.find((a) => 'backtest_per_hour' in a.details.changes)!.details, {
      changes: { backtest_per_hour: { from: 10, to: 1 }, paper_transition_per_hour: { from: 4, to: 20 } },
    });
    assert.equal(audits[0]!.actor_id, admin.id);
  });

  it('accepts an empty change and changes nothing', async () => {
    const before = (await get()).json();
    assert.deepEqual((await patch({})).json(), before);
  });

  it(
    'reports each value outside its bounds on ["body", ' + 'name] in the Pydantic shape, and stores none of them',
    async () => {
      const before = (await get()).json();
      const detail = assertValidation(
        await patch({ backtest_per_hour: 0, optimize_per_hour: 51, paper_transition_per_hour: 21 }),
        [
          { loc: ['body', 'backtest_per_hour'], type: 'greater_than_equal' },
          { loc: ['body', 'optimize_per_hour'], type: 'less_than_equal' },
          { loc: ['body', 'paper_transition_per_hour'], type: 'less_than_equal' },
        ],
      );
      assert.deepEqual(detail[0], {
        type: 'greater_than_equal',
        loc: ['body', 'backtest_per_hour'],
        msg: 'Input should be greater than or equal to 1',
        input: 0,
        ctx: { ge: 1 },
      });
      assert.deepEqual(detail[2], {
        type: 'less_than_equal',
        loc: ['body', 'paper_transition_per_hour'],
        msg: 'Input should be less than or equal to 20',
        input: 21,
        ctx: { le: 20 },
      });
      assertValidation(await patch({ backtest_per_hour: 101 }), [
        { loc: ['body', 'backtest_per_hour'], type: 'less_than_equal' },
      ]);
      assertValidation(await patch({ optimize_per_hour: 0 }), [
        { loc: ['body', 'optimize_per_hour'], type: 'greater_than_equal' },
      ]);
      assertValidation(await patch({ paper_transition_per_hour: 0 }), [
        { loc: ['body', 'paper_transition_per_hour'], type: 'greater_than_equal' },
      ]);
      assertValidation(await patch({ backtest_per_hour: 2.5 }), [
        { loc: ['body', 'backtest_per_hour'], type: 'int_from_float' },
      ]);
      assert.deepEqual((await get()).json(), before);
    },
  );
});
