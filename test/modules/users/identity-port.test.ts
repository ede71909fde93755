// The identity module's port is use cases holding the account rules (decision 177): whoever calls
// them (admin, auth, billing, the command line) gets the same refusals and the same effects.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../../src/platform/auth/tokens.ts';
import { AppError } from '../../../src/platform/http/errors.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

describe('the identity port', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => t.close());

  const inTx = <T>(work: (tx: Parameters<Parameters<TestApp['database']['db']['transaction']>[0]>[0]) => Promise<T>) =>
    t.database.db.transaction(work);
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
  const refused = (status: number) => (error: unknown) => error instanceof AppError && error.status === status;

  it('keeps the last active admin and refuses locking oneself out, whoever calls', async () => {
    const { accounts } = t.modules.users;
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const now = new Date();
    // Another admin may exist from earlier tests: the last one is whichever remains.
    const others = (await accounts.list({ role: 'admin', status: 'active' }, 0, 100)).rows.filter(
      (u) => u.id !== admin.id,
    );
    for (const other of others) await inTx((tx) => accounts.change(other.id, { role: 'user' }, null, now, tx));
    await assert.rejects(
      inTx((tx) => accounts.change(admin.id, { role: 'user' }, null, now, tx)),
      refused(409),
    );
    await assert.rejects(
      inTx((tx) => accounts.delete(admin.id, null, now, tx)),
      refused(409),
    );
    await assert.rejects(
      inTx((tx) => accounts.change(admin.id, { status: 'suspended' }, admin.id, now, tx)),
      refused(409),
    );
    const bulk = await inTx((tx) => accounts.changeStatuses([admin.id], 'suspended', null, now, tx));
    assert.deepEqual(bulk.changed, []);
    assert.match(bulk.skipped[0]!.reason, /last active admin/);
    assert.equal((await accounts.findById(admin.id))!.role, 'admin');
  });

  it('ends every session of a suspended account, and a reset password voids the others but the kept one', async () => {
    const { accounts } = t.modules.users;
    const user = await signIn(t.app, t.database);
    const { user: suspended, changes } = await inTx((tx) =>
      accounts.change(user.id, { status: 'suspended' }, null, new Date(), tx),
    );
    assert.equal(suspended.status, 'suspended');
    assert.deepEqual(changes.status, { from: 'active', to: 'suspended' });
    await inTx((tx) => accounts.change(user.id, { status: 'active' }, null, new Date(), tx));
    t.modules.users.guards.invalidate(user.id);
    assert.equal((await me(user.token)).statusCode, 401);

    const other = await signIn(t.app, t.database);
    const revoked = await inTx((tx) => accounts.setPassword(other.id, 'not-a-hash', 'password_change', new Date(), tx));
    assert.equal(revoked, 1);
  });

  it('opens a grace period once, clears it once, and changes a tier only to another one', async () => {
    const { accounts } = t.modules.users;
    const user = await signIn(t.app, t.database);
    const now = new Date();
    const endsAt = new Date(now.getTime() + 86_400_000);
    assert.deepEqual(await inTx((tx) => accounts.openGracePeriod(user.id, endsAt, now, tx)), { endsAt, opened: true });
    const again = await inTx((tx) => accounts.openGracePeriod(user.id, new Date(endsAt.getTime() + 1), now, tx));
    assert.deepEqual(again, { endsAt, opened: false });
    assert.equal(await inTx((tx) => accounts.clearGracePeriod(user.id, now, tx)), true);
    assert.equal(await inTx((tx) => accounts.clearGracePeriod(user.id, now, tx)), false);
    assert.equal(await inTx((tx) => accounts.changeTier(user.id, 'pro', now, tx)), 'free');
    assert.equal(await inTx((tx) => accounts.changeTier(user.id, 'pro', now, tx)), undefined);
    assert.equal((await accounts.findById(user.id))!.subscriptionTier, 'pro');
  });

  it('rotates a refresh token once; presented again, it ends its session', async () => {
    const { sessions } = t.modules.users;
    const user = await signIn(t.app, t.database);
    const now = new Date();
    const first = await inTx((tx) => sessions.rotate(hashToken(user.refreshToken), now, tx));
    assert.equal(first.kind, 'rotated');
    const second = await inTx((tx) => sessions.rotate(hashToken(user.refreshToken), now, tx));
    assert.equal(second.kind, 'reused');
    const third = await inTx((tx) => sessions.rotate(hashToken(user.refreshToken), now, tx));
    assert.equal(third.kind, 'invalid');
    assert.equal((await inTx((tx) => sessions.rotate(hashToken('never-issued'), now, tx))).kind, 'invalid');
  });
});
