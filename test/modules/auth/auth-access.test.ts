// What happens to a signed-in user when the account changes behind their back, and the configured
// first admin. Login throttling is in auth-throttling.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { eq } from 'drizzle-orm';
import { users } from '../../../src/modules/users/users.tables.ts';
import { createModules } from '../../../src/app.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

// Guards cache a principal for at most 2 s by the app's clock: a change shows once that clock has moved
// that much, here by hand.
const PRINCIPAL_TTL_MS = 2_000;

describe('auth access', () => {
  let t: TestApp;
  /** The app's clock: it stands still but for what the tests move. */
  const clock = fixedClock(new Date());
  before(async () => {
    t = await buildTestApp({
      clock,
      routes: async (app) => {
        app.get('/test/admin-only', { onRequest: app.guards.requireAdmin, schema: { hide: true } }, async () => ({
          ok: true,
        }));
      },
    });
  });
  after(async () => {
    await t.close();
  });

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  describe("changes take effect within the guards' 2 s, without any cache invalidation", () => {
    // The changes are made through a second instance on the same database: this one's cache hears nothing of them.
    let other: TestApp;
    let otherAdmin: TestUser;
    before(async () => {
      other = await buildTestApp({ keepData: true });
      otherAdmin = await signIn(other.app, other.database, { role: 'admin' });
    });
    after(async () => {
      await other.close();
    });
    const changeElsewhere = async (userId: string, payload: object) => {
      const response = await other.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${userId}`,
        payload,
        headers: otherAdmin.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
    };

    for (const status of ['suspended', 'deleted'] as const) {
      it(`a ${status} user gets 403 on every authenticated route`, async () => {
        const user = await signIn(t.app, t.database);
        assert.equal((await get('/api/auth/me', user.headers)).statusCode, 200, 'the principal is now cached');
        await changeElsewhere(user.id, { status });
        // However long this takes on the machine's clock, the cache ages by the app's.
        clock.advance(PRINCIPAL_TTL_MS - 1);
        assert.equal((await get('/api/auth/me', user.headers)).statusCode, 200, 'still cached, 1 ms short of 2 s');
        clock.advance(1);
        const response = await get('/api/auth/me', user.headers);
        assert.equal(response.statusCode, 403, response.body);
        assert.deepEqual(response.json(), { detail: `User account is ${status}` });
      });
    }

    it('a demoted admin loses admin routes', async () => {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      assert.equal((await get('/test/admin-only', admin.headers)).statusCode, 200);
      await changeElsewhere(admin.id, { role: 'user' });
      clock.advance(PRINCIPAL_TTL_MS);
      const response = await get('/test/admin-only', admin.headers);
      assert.equal(response.statusCode, 403, response.body);
      assert.deepEqual(response.json(), { detail: 'Admin role required' });
    });

    it('revoked sessions and removed users get 401', async () => {
      const revoked = await signIn(t.app, t.database);
      const removed = await signIn(t.app, t.database);
      for (const user of [revoked, removed]) assert.equal((await get('/api/auth/me', user.headers)).statusCode, 200);
      const logout = await other.app.inject({ method: 'POST', url: '/api/auth/logout', headers: revoked.headers });
      assert.equal(logout.statusCode, 200);
      // No operation removes an account outright (deletion is soft): the row is deleted from its table.
      await t.database.db.delete(users).where(eq(users.id, removed.id));
      clock.advance(PRINCIPAL_TTL_MS);
      for (const user of [revoked, removed]) {
        const response = await get('/api/auth/me', user.headers);
        assert.equal(response.statusCode, 401, response.body);
      }
    });

    it('a normal user is refused admin routes with 403', async () => {
      const user = await signIn(t.app, t.database);
      const response = await get('/test/admin-only', user.headers);
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), { detail: 'Admin role required' });
    });
  });

  describe('bootstrap admin', () => {
    let viewer: TestUser;
    before(async () => {
      viewer = await signIn(t.app, t.database, { role: 'admin' });
    });
    /** The accounts with exactly this e-mail, as the admin user list shows them. */
    const accountsOf = async (email: string) => {
      const response = await get(`/api/admin/users?search=${encodeURIComponent(email)}&limit=100`, viewer.headers);
      assert.equal(response.statusCode, 200, response.body);
      return (response.json().users as { id: string; email: string; role: string }[]).filter((u) => u.email === email);
    };

    it('ADMIN_EMAIL and ADMIN_PASSWORD create an admin at start, once', async () => {
      const env = { ADMIN_EMAIL: 'Boss@Example.com', ADMIN_PASSWORD: 'boss-password-1' };
      const first = await buildTestApp({ env, keepData: true });
      const again = await buildTestApp({ env, keepData: true });
      try {
        const rows = await accountsOf('boss@example.com');
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.role, 'admin');
        const response = await again.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: 'boss@example.com', password: 'boss-password-1' },
        });
        assert.equal(response.statusCode, 200);
        const me = await again.app.inject({
          method: 'GET',
          url: '/api/auth/me',
          headers: { authorization: `Bearer ${response.json().access_token}` },
        });
        assert.equal(me.json().role, 'admin');
      } finally {
        await first.close();
        await again.close();
      }
    });

    it(
      'makes an account registered earlier with that address an admin only when ' +
        'ADMIN_PASSWORD is its password, and says so',
      async () => {
        const register = (email: string, password: string) =>
          t.app.inject({ method: 'POST', url: '/api/auth/register', payload: { email, password } });
        assert.equal((await register('owner@example.com', 'owner-password-1')).statusCode, 201);
        assert.equal((await register('squatter-target@example.com', 'squatters-password')).statusCode, 201);
        const owner = await buildTestApp({
          env: { ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'owner-password-1' },
          keepData: true,
        });
        const squatted = await buildTestApp({
          env: { ADMIN_EMAIL: 'squatter-target@example.com', ADMIN_PASSWORD: 'the-operators-password' },
          keepData: true,
        });
        try {
          const roleOf = async (email: string) => (await accountsOf(email))[0]!.role;
          assert.equal(await roleOf('owner@example.com'), 'admin');
          assert.ok(
            owner.logLines().some((l) => l.level === 30 && String(l.msg).startsWith('made the configured ADMIN_EMAIL')),
          );
          assert.equal(
            await roleOf('squatter-target@example.com'),
            'user',
            'whoever registered the address first does not become admin',
          );
          const warning = squatted
            .logLines()
            .find((l) => l.level === 40 && String(l.msg).startsWith('ADMIN_EMAIL is registered already'));
          assert.match(String(warning?.msg), /npm run cli -- users:promote --email squatter-target@example\.com/);
          assert.doesNotMatch(squatted.logText(), /the-operators-password/);
        } finally {
          await owner.close();
          await squatted.close();
        }
      },
    );

    it('instances starting together create it once and all start', async () => {
      const env = { ADMIN_EMAIL: 'race@example.com', ADMIN_PASSWORD: 'race-password-1' };
      const racer = await buildTestApp({ env, keepData: true });
      try {
        // No operation removes an account outright (deletion is soft): the row is deleted so that
        // the instances race to create it.
        await t.database.db.delete(users).where(eq(users.email, 'race@example.com'));
        const modules = Array.from({ length: 4 }, () => createModules(racer.platform).auth);
        await Promise.all(modules.map((module) => module.bootstrapAdmin()));
        const rows = await accountsOf('race@example.com');
        assert.equal(rows.length, 1);
        const activity = await get(`/api/admin/users/${rows[0]!.id}/activity?limit=100`, viewer.headers);
        const audits = (activity.json() as { action: string; subject_user_id: string }[]).filter(
          (a) => a.action === 'auth.register' && a.subject_user_id === rows[0]!.id,
        );
        assert.equal(audits.length, 1);
      } finally {
        await racer.close();
      }
    });
  });
});
