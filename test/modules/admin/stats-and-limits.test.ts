import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { paymentsLedger } from '../../../src/modules/webhooks/webhooks.tables.ts';
import { auditLog } from '../../../src/platform/db/schema.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertValidation, insertUsers } from './admin-fixtures.ts';

describe('admin: platform statistics', () => {
  // The first second of June, UTC: a user created a millisecond earlier belongs to May.
  const clock = fixedClock('2025-06-01T00:00:05.000Z');
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    t = await buildTestApp({ clock });
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
    await insertUsers(t.database, [
      { createdAt: new Date('2025-05-31T23:59:59.999Z') },
      { createdAt: new Date('2025-06-01T00:00:00.000Z') },
      { status: 'suspended', createdAt: new Date('2025-06-01T00:00:01.000Z') },
      { status: 'suspended', createdAt: new Date('2024-12-01T00:00:00.000Z') },
      { status: 'deleted', deletedAt: clock.now(), createdAt: new Date('2025-06-01T00:00:02.000Z') },
    ]);
    await t.database.db.insert(paymentsLedger).values([
      { externalId: 'in_1', amount: '0.10', currency: 'usd', occurredAt: clock.now() },
      { externalId: 'in_2', amount: '0.20', currency: 'usd', occurredAt: clock.now() },
      { externalId: 'in_3', amount: '99.70', currency: 'usd', occurredAt: clock.now() },
    ]);
    assert.deepEqual((await stats()).json(), {
      totalUsers: 5,
      activeUsers: 3,
      suspendedUsers: 2,
      newUsersThisMonth: 3,
      totalRevenue: 100,
      revenueCurrency: 'USD',
      revenueByCurrency: { USD: 100 },
    });
    await t.database.db.insert(paymentsLedger).values({ externalId: 'in_4', amount: '0.01', currency: 'usd', occurredAt: clock.now() });
    assert.equal((await stats()).json().totalRevenue, 100.01);
  });

  it('adds up the settlement currency only and lists every currency beside it', async () => {
    await t.database.db.insert(paymentsLedger).values([
      { externalId: 'in_jpy', amount: '5000', currency: 'JPY', occurredAt: clock.now() },
      { externalId: 'in_eur', amount: '9.99', currency: 'eur', occurredAt: clock.now() },
    ]);
    const body = (await stats()).json();
    assert.equal(body.totalRevenue, 100.01);
    assert.equal(body.revenueCurrency, 'USD');
    assert.deepEqual(body.revenueByCurrency, { EUR: 9.99, JPY: 5000, USD: 100.01 });
  });
});

describe('admin: platform statistics in another settlement currency', () => {
  it('SETTLEMENT_CURRENCY=jpy counts the yen only; a currency without payments counts 0', async () => {
    const t = await buildTestApp({ env: { SETTLEMENT_CURRENCY: 'jpy' } });
    try {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const stats = async () => (await t.app.inject({ method: 'GET', url: '/api/admin/stats', headers: admin.headers })).json();
      assert.equal((await stats()).totalRevenue, 0);
      await t.database.db.insert(paymentsLedger).values([
        { externalId: 'in_jpy', amount: '5000', currency: 'jpy', occurredAt: new Date() },
        { externalId: 'in_usd', amount: '49', currency: 'usd', occurredAt: new Date() },
      ]);
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
      () => loadConfig({ JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'), SETTLEMENT_CURRENCY: 'dollars' }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.includes('SETTLEMENT_CURRENCY must be a three-letter ISO 4217 code (got "dollars")'),
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
    t.app.inject({ method: 'PATCH', url: '/api/admin/platform-limits', payload: payload as object, headers: admin.headers });
  const bounds = { backtest_per_hour: [1, 100], optimize_per_hour: [1, 50], paper_transition_per_hour: [1, 20] };

  it('answers the defaults and the bounds before any change', async () => {
    const response = await get();
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { backtest_per_hour: 10, optimize_per_hour: 5, paper_transition_per_hour: 4, bounds });
    assert.deepEqual(await t.modules.admin.getPlatformLimits(), { backtest_per_hour: 10, optimize_per_hour: 5, paper_transition_per_hour: 4 });
  });

  it('stores a change, keeps the other limits, audits it, and serves it to other modules', async () => {
    const response = await patch({ paper_transition_per_hour: 20, backtest_per_hour: 1 });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { backtest_per_hour: 1, optimize_per_hour: 5, paper_transition_per_hour: 20, bounds });
    assert.deepEqual((await patch({ optimize_per_hour: 50 })).json(), { backtest_per_hour: 1, optimize_per_hour: 50, paper_transition_per_hour: 20, bounds });
    assert.deepEqual((await get()).json(), { backtest_per_hour: 1, optimize_per_hour: 50, paper_transition_per_hour: 20, bounds });
    assert.equal((await t.modules.admin.getPlatformLimits()).paper_transition_per_hour, 20);
    const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.action, 'admin.platform_limits.update'));
    assert.equal(audits.length, 2);
    assert.deepEqual(audits.find((a) => 'backtest_per_hour' in (a.details.changes as object))!.details, {
      changes: { backtest_per_hour: { from: 10, to: 1 }, paper_transition_per_hour: { from: 4, to: 20 } },
    });
    assert.equal(audits[0]!.actorId, admin.id);
  });

  it('accepts an empty change and changes nothing', async () => {
    const before = (await get()).json();
    assert.deepEqual((await patch({})).json(), before);
  });

  it('reports each value outside its bounds on ["body", name] in the Pydantic shape, and stores none of them', async () => {
    const before = (await get()).json();
    const detail = assertValidation(await patch({ backtest_per_hour: 0, optimize_per_hour: 51, paper_transition_per_hour: 21 }), [
      { loc: ['body', 'backtest_per_hour'], type: 'greater_than_equal' },
      { loc: ['body', 'optimize_per_hour'], type: 'less_than_equal' },
      { loc: ['body', 'paper_transition_per_hour'], type: 'less_than_equal' },
    ]);
    assert.deepEqual(detail[0], { type: 'greater_than_equal', loc: ['body', 'backtest_per_hour'], msg: 'Input should be greater than or equal to 1', input: 0, ctx: { ge: 1 } });
    assert.deepEqual(detail[2], { type: 'less_than_equal', loc: ['body', 'paper_transition_per_hour'], msg: 'Input should be less than or equal to 20', input: 21, ctx: { le: 20 } });
    assertValidation(await patch({ backtest_per_hour: 101 }), [{ loc: ['body', 'backtest_per_hour'], type: 'less_than_equal' }]);
    assertValidation(await patch({ optimize_per_hour: 0 }), [{ loc: ['body', 'optimize_per_hour'], type: 'greater_than_equal' }]);
    assertValidation(await patch({ paper_transition_per_hour: 0 }), [{ loc: ['body', 'paper_transition_per_hour'], type: 'greater_than_equal' }]);
    assertValidation(await patch({ backtest_per_hour: 2.5 }), [{ loc: ['body', 'backtest_per_hour'], type: 'int_from_float' }]);
    assert.deepEqual((await get()).json(), before);
  });
});
