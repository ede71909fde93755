import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { deviceSessions, users } from '../../../src/modules/users/users.tables.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { buildTestApp, newClientAddress, signIn, TEST_JWT_SECRET, type TestApp } from '../../helpers/test-app.ts';

describe('auth', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  const post = (url: string, payload?: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress });
  /** The process's password hashes so far, as /metrics exports them. */
  const hashesComputed = async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = /^password_hashes_computed (\d+)$/m.exec(text);
    assert.ok(line, 'password_hashes_computed is exported');
    return Number(line[1]);
  };
  /** Suspends a user the way an admin does (an admin of its own: another test's app empties the database). */
  const suspend = async (userId: string) => {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${userId}`,
      payload: { status: 'suspended' },
      headers: admin.headers,
    });
    assert.equal(response.json().status, 'suspended');
  };

  describe('register', () => {
    it('creates an active user with role user and tier free, without its password', async () => {
      const response = await post('/api/auth/register', {
        email: 'Ada@Example.com',
        password: 'correct horse',
        firstName: 'Ada',
      });
      assert.equal(response.statusCode, 201);
      const body = response.json();
      assert.equal(body.email, 'ada@example.com');
      assert.equal(body.role, 'user');
      assert.equal(body.subscriptionTier, 'free');
      assert.equal(body.status, 'active');
      assert.equal(body.firstName, 'Ada');
      assert.equal(body.lastName, '');
      assert.match(body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.ok(!('password' in body) && !('passwordHash' in body));
      // How the password is kept at rest shows only in the users table.
      const [row] = await t.database.db.select().from(users).where(eq(users.id, body.id));
      assert.match(row!.passwordHash, /^scrypt\$/);
      assert.ok(!row!.passwordHash.includes('correct horse'));
    });

    it('answers 409 for an e-mail already registered, whatever its case', async () => {
      await post('/api/auth/register', { email: 'dup@example.com', password: 'password-1' });
      const response = await post('/api/auth/register', { email: 'DUP@example.com', password: 'password-2' });
      assert.equal(response.statusCode, 409);
      assert.deepEqual(response.json(), { detail: 'A user with this email already exists' });
    });

    it('reports every invalid field in the Pydantic shape', async () => {
      const response = await post('/api/auth/register', { email: 'not-an-email', password: 'short' });
      assert.equal(response.statusCode, 422);
      const detail = response.json().detail as { type: string; loc: string[] }[];
      assert.deepEqual(
        detail.map((d) => d.loc),
        [
          ['body', 'email'],
          ['body', 'password'],
        ],
      );
      assert.equal(detail[1]!.type, 'string_too_short');
    });

    it('ignores every field it does not declare: no body makes an admin, a suspended or a paid account', async () => {
      const body = {
        email: 'climber@example.com',
        password: 'password-1',
        firstName: 'Cli',
        role: 'admin',
        status: 'suspended',
        subscriptionTier: 'enterprise',
        emailVerified: true,
        twoFactorEnabled: true,
        id: '00000000-0000-4000-8000-000000000042',
        createdAt: '2001-01-01T00:00:00.000Z',
        is_active: false,
        passwordHash: 'scrypt$1$1$1$AA==$AA==',
      };
      const response = await post('/api/auth/register', body, {}, newClientAddress());
      assert.equal(response.statusCode, 201, response.body);
      const created = response.json();
      assert.equal(created.role, 'user');
      assert.equal(created.status, 'active');
      assert.equal(created.subscriptionTier, 'free');
      assert.equal(created.emailVerified, false);
      assert.equal(created.twoFactorEnabled, false);
      assert.notEqual(created.id, body.id);
      assert.notEqual(created.createdAt, body.createdAt);
      // Read back as the account itself and as an admin sees it: still a plain, active user.
      const login = await post('/api/auth/login', { email: body.email, password: body.password });
      assert.equal(login.statusCode, 200, 'the password given is the one set, not the hash in the body');
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${login.json().access_token}` },
      });
      assert.deepEqual([me.json().role, me.json().status, me.json().subscriptionTier], ['user', 'active', 'free']);
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const listed = await t.app.inject({
        method: 'GET',
        url: '/api/admin/users?role=admin&limit=100',
        headers: admin.headers,
      });
      assert.ok(!listed.json().users.some((u: { email: string }) => u.email === body.email), 'not among the admins');
    });

    it(`is limited per client address (SIGNUP_LIMIT_PER_HOUR), with 429 and Retry-After`, async () => {
      const limited = await buildTestApp({ env: { SIGNUP_LIMIT_PER_HOUR: '3' } });
      try {
        const register = (i: number, remoteAddress: string) =>
          limited.app.inject({
            method: 'POST',
            url: '/api/auth/register',
            payload: { email: `burst-${i}@example.com`, password: 'password-1' },
            remoteAddress,
          });
        for (let i = 0; i < 3; i++) assert.equal((await register(i, '10.77.0.1')).statusCode, 201);
        const refused = await register(3, '10.77.0.1');
        assert.equal(refused.statusCode, 429);
        assert.deepEqual(refused.json(), { detail: 'Too many sign-ups from this address; try again later' });
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(retryAfter > 3000 && retryAfter <= 3600, String(retryAfter));
        assert.equal((await register(4, '10.77.0.2')).statusCode, 201, 'another address is not affected');
        assert.equal((await register(5, '2001:db8:77::1')).statusCode, 201);
        assert.equal((await register(6, '2001:db8:77::2')).statusCode, 201);
        assert.equal((await register(7, '2001:db8:77:0:1::9')).statusCode, 201);
        assert.equal((await register(8, '2001:db8:77::3')).statusCode, 429, 'an IPv6 client is counted per /64');
      } finally {
        await limited.close();
      }
    });

    it('refuses a taken address before hashing the password', async () => {
      const address = newClientAddress();
      assert.equal(
        (await post('/api/auth/register', { email: 'early@example.com', password: 'password-1' }, {}, address))
          .statusCode,
        201,
      );
      const before = await hashesComputed();
      const again = await post(
        '/api/auth/register',
        { email: 'Early@example.com', password: 'password-2' },
        {},
        address,
      );
      assert.equal(again.statusCode, 409);
      assert.equal(await hashesComputed(), before, 'no scrypt spent on a sign-up that cannot succeed');
      assert.equal(
        (await post('/api/auth/register', { email: 'later@example.com', password: 'password-3' }, {}, address))
          .statusCode,
        201,
      );
      assert.equal(await hashesComputed(), before + 1, 'the positive control: a sign-up that succeeds hashes once');
    });

    it('is refused with 403 when sign-up is disabled', async () => {
      const closed = await buildTestApp({ env: { ALLOW_SIGNUP: 'false' } });
      try {
        const response = await closed.app.inject({
          method: 'POST',
          url: '/api/auth/register',
          payload: { email: 'x@example.com', password: 'password-1' },
        });
        assert.equal(response.statusCode, 403);
      } finally {
        await closed.close();
      }
    });
  });

  describe('login', () => {
    it('returns a bearer access token and a refresh token, and records the device session', async () => {
      await post('/api/auth/register', { email: 'login@example.com', password: 'password-1' });
      const response = await post(
        '/api/auth/login',
        { email: 'login@example.com', password: 'password-1' },
        { 'user-agent': 'test-agent/1.0' },
      );
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.token_type, 'bearer');
      assert.equal(body.expires_in, 900);
      assert.ok(body.access_token.split('.').length === 3);
      assert.ok(body.refresh_token.length >= 40);
      assert.equal(response.headers['cache-control'], 'no-store');
      const [payload] = [JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString())];
      assert.equal(payload.role, 'user');
      // No operation lists device sessions: the session's user agent and address are read from its table.
      const [session] = await t.database.db.select().from(deviceSessions).where(eq(deviceSessions.id, payload.sid));
      assert.equal(session!.userAgent, 'test-agent/1.0');
      assert.equal(session!.ip, '127.0.0.1');
    });

    it('answers 401 for a wrong password and for an unknown e-mail alike', async () => {
      await post('/api/auth/register', { email: 'wrong@example.com', password: 'password-1' });
      const wrong = await post('/api/auth/login', { email: 'wrong@example.com', password: 'nope-nope' });
      const unknown = await post('/api/auth/login', { email: 'nobody@example.com', password: 'nope-nope' });
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      assert.deepEqual(wrong.json(), unknown.json());
    });

    it('writes one audit row for a wrong password and for an unknown e-mail alike (decision 902)', async () => {
      await post('/api/auth/register', { email: 'same-cost@example.com', password: 'password-1' });
      const failures = async () =>
        Number(
          (
            await t.database.rows<{ n: number }>(
              sql`SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.login_failed'`,
            )
          )[0]!.n,
        );
      const costOf = async (email: string) => {
        const before = await failures();
        const answer = await post('/api/auth/login', { email, password: 'nope-nope' }, {}, newClientAddress());
        assert.equal(answer.statusCode, 401);
        return (await failures()) - before;
      };
      assert.equal(await costOf('same-cost@example.com'), 1, 'a wrong password');
      assert.equal(await costOf('no-account-here@example.com'), 1, 'an unknown address: the same write');
    });

    it('throttles repeated failures for one account from one address with 429 and Retry-After', async () => {
      await post('/api/auth/register', { email: 'victim@example.com', password: 'password-1' });
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++) {
        assert.equal(
          (await post('/api/auth/login', { email: 'victim@example.com', password: `guess-${i}` })).statusCode,
          401,
        );
      }
      const blocked = await post('/api/auth/login', { email: 'victim@example.com', password: 'password-1' });
      assert.equal(blocked.statusCode, 429);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
    });

    it('refuses a suspended user with 403', async () => {
      await suspend((await post('/api/auth/register', { email: 'sus@example.com', password: 'password-1' })).json().id);
      const response = await post('/api/auth/login', { email: 'sus@example.com', password: 'password-1' });
      assert.equal(response.statusCode, 403);
    });

    it('never writes the password to the log', async () => {
      const password = 'very-secret-password-42';
      await post('/api/auth/register', { email: 'quiet@example.com', password });
      await post('/api/auth/login', { email: 'quiet@example.com', password });
      await post('/api/auth/login', { email: 'quiet@example.com', password: `${password}-wrong` });
      assert.ok(t.logText().length > 0, 'the app logged its requests');
      assert.ok(!t.logText().includes(password));
    });
  });

  describe('access tokens', () => {
    it('me answers the signed-in account, with no-store', async () => {
      const user = await signIn(t.app, t.database);
      const response = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().email, user.email);
      assert.equal(response.headers['cache-control'], 'no-store');
    });

    it('answers 401 Not authenticated with WWW-Authenticate without a token', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/api/auth/me' });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), { detail: 'Not authenticated' });
      assert.equal(response.headers['www-authenticate'], 'Bearer');
    });

    it('rejects alg none, a wrong signature and an expired token', async () => {
      const user = await signIn(t.app, t.database);
      const [, payload] = user.token.split('.');
      const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
      const forged = await new SignJWT(JSON.parse(Buffer.from(payload!, 'base64url').toString()))
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode('another-secret-another-secret-another'));
      const expired = await new SignJWT({
        ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
        exp: Math.floor(Date.now() / 1000) - 60,
      })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
      for (const token of [none, forged, expired, 'garbage']) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/api/auth/me',
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(response.statusCode, 401, token);
      }
    });

    it('a suspended user is refused with 403 on the next request', async () => {
      const user = await signIn(t.app, t.database);
      await suspend(user.id);
      const response = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(response.statusCode, 403);
    });
  });

  describe('refresh and logout', () => {
    it('rotates the refresh token; reusing the old one revokes the session', async () => {
      const user = await signIn(t.app, t.database);
      const first = await post('/api/auth/refresh', { refresh_token: user.refreshToken });
      assert.equal(first.statusCode, 200);
      const rotated = first.json();
      assert.notEqual(rotated.refresh_token, user.refreshToken);

      const reuse = await post('/api/auth/refresh', { refresh_token: user.refreshToken });
      assert.equal(reuse.statusCode, 401);
      // The thief's reuse ended the session: the rotated token and the access token are dead too.
      assert.equal((await post('/api/auth/refresh', { refresh_token: rotated.refresh_token })).statusCode, 401);
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${rotated.access_token}` },
      });
      assert.equal(me.statusCode, 401);
    });

    it('answers 401 for an unknown refresh token and 422 for a missing one', async () => {
      assert.equal((await post('/api/auth/refresh', { refresh_token: 'nope' })).statusCode, 401);
      const missing = await post('/api/auth/refresh', {});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json().detail[0].loc, ['body', 'refresh_token']);
    });

    it('logout revokes the session: its access and refresh tokens stop working', async () => {
      const user = await signIn(t.app, t.database);
      const response = await post('/api/auth/logout', undefined, user.headers);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true });
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).statusCode, 401);
      assert.equal((await post('/api/auth/refresh', { refresh_token: user.refreshToken })).statusCode, 401);
    });

    it('logout without a token is 401', async () => {
      assert.equal((await post('/api/auth/logout')).statusCode, 401);
    });
  });
});
