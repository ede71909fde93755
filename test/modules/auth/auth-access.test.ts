// What happens to a signed-in user when the account changes behind their back, how logins are
// throttled (also across instances sharing Redis), and the configured first admin.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { eq } from 'drizzle-orm';
import { LOGIN_LIMITS } from '../../../src/modules/auth/auth.service.ts';
import { users } from '../../../src/modules/users/users.tables.ts';
import { createModules } from '../../../src/app.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const NO_REDIS = process.env.REDIS_URL ? false : 'REDIS_URL is not set: sharing the login counter needs Redis (REDIS_URL=redis://127.0.0.1:6379)';
// Guards cache a principal for at most 2 s; a change must show within that, plus slack for the test.
const WITHIN_MS = 2_600;

describe('auth access', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      routes: async (app) => {
        app.get('/test/admin-only', { onRequest: app.guards.requireAdmin, schema: { hide: true } }, async () => ({ ok: true }));
      },
    });
  });
  after(async () => {
    await t.close();
  });

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });
  const login = (email: string, password: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });

  /** Polls until the route answers `status`; returns how long that took. */
  async function untilStatus(url: string, headers: Record<string, string>, status: number): Promise<{ elapsed: number; body: unknown }> {
    const started = Date.now();
    for (;;) {
      const response = await get(url, headers);
      if (response.statusCode === status) return { elapsed: Date.now() - started, body: response.json() };
      if (Date.now() - started > 10_000) assert.fail(`${url} still answers ${response.statusCode}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  describe('changes take effect within a few seconds, without any cache invalidation', { concurrency: true }, () => {
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
      const response = await other.app.inject({ method: 'PATCH', url: `/api/admin/users/${userId}`, payload, headers: otherAdmin.headers });
      assert.equal(response.statusCode, 200, response.body);
    };

    for (const status of ['suspended', 'deleted'] as const) {
      it(`a ${status} user gets 403 on every authenticated route`, async () => {
        const user = await signIn(t.app, t.database);
        assert.equal((await get('/api/auth/me', user.headers)).statusCode, 200, 'the principal is now cached');
        await changeElsewhere(user.id, { status });
        const { elapsed, body } = await untilStatus('/api/auth/me', user.headers, 403);
        assert.ok(elapsed <= WITHIN_MS, `took ${elapsed} ms`);
        assert.deepEqual(body, { detail: `User account is ${status}` });
      });
    }

    it('a demoted admin loses admin routes', async () => {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      assert.equal((await get('/test/admin-only', admin.headers)).statusCode, 200);
      await changeElsewhere(admin.id, { role: 'user' });
      const { elapsed, body } = await untilStatus('/test/admin-only', admin.headers, 403);
      assert.ok(elapsed <= WITHIN_MS, `took ${elapsed} ms`);
      assert.deepEqual(body, { detail: 'Admin role required' });
    });

    it('revoked sessions and removed users get 401', async () => {
      const revoked = await signIn(t.app, t.database);
      const removed = await signIn(t.app, t.database);
      for (const user of [revoked, removed]) assert.equal((await get('/api/auth/me', user.headers)).statusCode, 200);
      const logout = await other.app.inject({ method: 'POST', url: '/api/auth/logout', headers: revoked.headers });
      assert.equal(logout.statusCode, 200);
      // No operation removes an account outright (deletion is soft): the row is deleted from its table.
      await t.database.db.delete(users).where(eq(users.id, removed.id));
      for (const user of [revoked, removed]) {
        const { elapsed } = await untilStatus('/api/auth/me', user.headers, 401);
        assert.ok(elapsed <= WITHIN_MS, `took ${elapsed} ms`);
      }
    });

    it('a normal user is refused admin routes with 403', async () => {
      const user = await signIn(t.app, t.database);
      const response = await get('/test/admin-only', user.headers);
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), { detail: 'Admin role required' });
    });
  });

  describe('login throttling', () => {
    const PAIR = LOGIN_LIMITS.perAccountAndClient;
    it(`per address: after ${LOGIN_LIMITS.perClient} failures from one address, even a correct login from it is refused`, async () => {
      const victim = await signIn(t.app, t.database);
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        assert.equal((await login(`nobody-${i}@example.com`, 'wrong-password', '10.9.0.1')).statusCode, 401);
      }
      const blocked = await login(victim.email, victim.password, '10.9.0.1');
      assert.equal(blocked.statusCode, 429);
      assert.deepEqual(blocked.json(), { detail: 'Too many login attempts; try again later' });
      const retryAfter = Number(blocked.headers['retry-after']);
      assert.ok(retryAfter > 0 && retryAfter <= LOGIN_LIMITS.windowMs / 1000, String(retryAfter));
      assert.equal((await login(victim.email, victim.password, '10.9.0.2')).statusCode, 200, 'other addresses are not affected');
    });

    it('failures from elsewhere do not lock the owner out', async () => {
      const owner = await signIn(t.app, t.database);
      for (let i = 0; i < PAIR; i++) assert.equal((await login(owner.email, `guess-${i}`, '10.9.3.1')).statusCode, 401);
      assert.equal((await login(owner.email, owner.password, '10.9.3.1')).statusCode, 429, 'the guessing address is refused, even the right password');
      assert.equal((await login(owner.email, owner.password, '10.9.3.2')).statusCode, 200, 'the owner, elsewhere, signs in');
    });

    it('no flood of anonymous requests flushes a lockout (11,000 made-up stream tickets)', async () => {
      const victim = await signIn(t.app, t.database);
      for (let i = 0; i < PAIR; i++) assert.equal((await login(victim.email, `guess-${i}`, '10.9.7.1')).statusCode, 401);
      for (let i = 0; i < 11_000; i++) {
        const ticket = randomBytes(32).toString('base64url');
        const response = await t.app.inject({ method: 'GET', url: `/api/stream?ticket=${ticket}`, remoteAddress: `10.10.${i >> 8}.${i & 255}` });
        if (i === 0) assert.equal(response.statusCode, 401, response.body);
      }
      assert.equal((await login(victim.email, victim.password, '10.9.7.1')).statusCode, 429, 'the guessing address is still refused');
    });

    it('parallel guesses from one address cannot slip past the per-account limit', async () => {
      const victim = await signIn(t.app, t.database);
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => login(victim.email, `guess-${i}`, '10.9.1.1'))).then((rs) =>
        rs.map((r) => r.statusCode),
      );
      assert.equal(statuses.filter((s) => s === 401).length, PAIR);
      assert.equal(statuses.filter((s) => s === 429).length, 12 - PAIR);
    });

    it('an IPv6 client is counted per /64, not per address', async () => {
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        assert.equal((await login(`v6-${i}@example.com`, 'wrong-password', `2001:db8:5:6::${(i + 1).toString(16)}`)).statusCode, 401);
      }
      const victim = await signIn(t.app, t.database);
      assert.equal((await login(victim.email, victim.password, '2001:db8:5:6:ffff::1')).statusCode, 429, 'another address of the same /64');
      assert.equal((await login(victim.email, victim.password, '2001:db8:5:7::1')).statusCode, 200, 'the next /64 is another client');
    });

    it(`an account takes ${LOGIN_LIMITS.perAccount} failures from everywhere; attempts refused for their address count for nothing`, async () => {
      const victim = await signIn(t.app, t.database);
      // An address over its own limit: its attempts at the victim must not count towards the account's.
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) assert.equal((await login(`filler-${i}@example.com`, 'wrong', '10.9.4.250')).statusCode, 401);
      for (let i = 0; i < LOGIN_LIMITS.perAccount; i++) assert.equal((await login(victim.email, 'wrong', '10.9.4.250')).statusCode, 429);
      const addresses = LOGIN_LIMITS.perAccount / PAIR;
      for (let a = 0; a < addresses; a++) {
        const failures = await Promise.all(Array.from({ length: PAIR }, () => login(victim.email, 'wrong', `10.9.4.${a + 1}`)));
        assert.deepEqual(failures.map((r) => r.statusCode), Array(PAIR).fill(401), `address ${a + 1}`);
      }
      const locked = await login(victim.email, victim.password, '10.9.5.1');
      assert.equal(locked.statusCode, 429, 'past the account-wide limit every address is refused until the window ends');
    });

    it('successful logins do not use up the per-address allowance, and reset the account\'s count from that address', async () => {
      const user = await signIn(t.app, t.database);
      for (let i = 0; i < LOGIN_LIMITS.perClient + 5; i++) {
        assert.equal((await login(user.email, user.password, '10.9.2.1')).statusCode, 200, `login ${i + 1}`);
      }
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < PAIR - 1; i++) assert.equal((await login(user.email, 'wrong', '10.9.2.2')).statusCode, 401);
        assert.equal((await login(user.email, user.password, '10.9.2.2')).statusCode, 200);
      }
    });
  });

  describe('behind a reverse proxy', () => {
    let proxied: TestApp;
    before(async () => {
      proxied = await buildTestApp({ keepData: true, env: { TRUST_PROXY: '127.0.0.1' } });
    });
    after(async () => {
      await proxied.close();
    });
    const viaProxy = (app: TestApp, email: string, password: string, client: string) =>
      app.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } });

    it('with TRUST_PROXY, each forwarded client is limited on its own', async () => {
      const owner = await signIn(proxied.app, proxied.database);
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        assert.equal((await viaProxy(proxied, `p-${i}@example.com`, 'wrong', '198.51.100.7')).statusCode, 401);
      }
      assert.equal((await viaProxy(proxied, owner.email, owner.password, '198.51.100.7')).statusCode, 429);
      assert.equal((await viaProxy(proxied, owner.email, owner.password, '198.51.100.8')).statusCode, 200, 'another client behind the same proxy');
    });

    it('without TRUST_PROXY, a forwarded address is not believed', async () => {
      const owner = await signIn(t.app, t.database);
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: `spoof-${i}@example.com`, password: 'wrong' },
          remoteAddress: '10.9.6.1',
          headers: { 'x-forwarded-for': `198.51.100.${i + 10}` },
        });
        assert.equal(response.statusCode, 401);
      }
      const spoofed = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: owner.email, password: owner.password },
        remoteAddress: '10.9.6.1',
        headers: { 'x-forwarded-for': '198.51.100.99' },
      });
      assert.equal(spoofed.statusCode, 429, 'the socket address is the client, whatever the header says');
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
        const response = await again.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'boss@example.com', password: 'boss-password-1' } });
        assert.equal(response.statusCode, 200);
        const me = await again.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${response.json().access_token}` } });
        assert.equal(me.json().role, 'admin');
      } finally {
        await first.close();
        await again.close();
      }
    });

    it('makes an account registered earlier with that address an admin only when ADMIN_PASSWORD is its password, and says so', async () => {
      const register = (email: string, password: string) => t.app.inject({ method: 'POST', url: '/api/auth/register', payload: { email, password } });
      assert.equal((await register('owner@example.com', 'owner-password-1')).statusCode, 201);
      assert.equal((await register('squatter-target@example.com', 'squatters-password')).statusCode, 201);
      const owner = await buildTestApp({ env: { ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'owner-password-1' }, keepData: true });
      const squatted = await buildTestApp({ env: { ADMIN_EMAIL: 'squatter-target@example.com', ADMIN_PASSWORD: 'the-operators-password' }, keepData: true });
      try {
        const roleOf = async (email: string) => (await accountsOf(email))[0]!.role;
        assert.equal(await roleOf('owner@example.com'), 'admin');
        assert.ok(owner.logLines().some((l) => l.level === 30 && String(l.msg).startsWith('made the configured ADMIN_EMAIL')));
        assert.equal(await roleOf('squatter-target@example.com'), 'user', 'whoever registered the address first does not become admin');
        const warning = squatted.logLines().find((l) => l.level === 40 && String(l.msg).startsWith('ADMIN_EMAIL is registered already'));
        assert.match(String(warning?.msg), /npm run cli -- users:promote --email squatter-target@example\.com/);
        assert.doesNotMatch(squatted.logText(), /the-operators-password/);
      } finally {
        await owner.close();
        await squatted.close();
      }
    });

    it('instances starting together create it once and all start', async () => {
      const env = { ADMIN_EMAIL: 'race@example.com', ADMIN_PASSWORD: 'race-password-1' };
      const racer = await buildTestApp({ env, keepData: true });
      try {
        // No operation removes an account outright (deletion is soft): the row is deleted so that the instances race to create it.
        await t.database.db.delete(users).where(eq(users.email, 'race@example.com'));
        const modules = Array.from({ length: 4 }, () => createModules(racer.platform).auth);
        await Promise.all(modules.map((module) => module.bootstrapAdmin()));
        const rows = await accountsOf('race@example.com');
        assert.equal(rows.length, 1);
        const activity = await get(`/api/admin/users/${rows[0]!.id}/activity?limit=100`, viewer.headers);
        const audits = (activity.json() as { action: string; subject_user_id: string }[]).filter((a) => a.action === 'auth.register' && a.subject_user_id === rows[0]!.id);
        assert.equal(audits.length, 1);
      } finally {
        await racer.close();
      }
    });
  });
});

describe('two instances on one Redis', { skip: NO_REDIS }, () => {
  it('share the login counter', async () => {
    const prefix = `test:${randomUUID()}:`;
    const a = await buildTestApp({ cachePrefix: prefix });
    const b = await buildTestApp({ cachePrefix: prefix, keepData: true });
    try {
      const user = await signIn(a.app, a.database);
      const attempt = (app: TestApp, password: string) =>
        app.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password }, remoteAddress: '10.8.0.1' });
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++) assert.equal((await attempt(i % 2 ? a : b, 'wrong')).statusCode, 401);
      assert.equal((await attempt(a, user.password)).statusCode, 429);
      assert.equal((await attempt(b, user.password)).statusCode, 429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
