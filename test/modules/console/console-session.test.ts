// The console's cookie session (decision 160): sign-in with and without a second factor, rotation of
// the refresh cookie, sign-out, the CSRF guard; and the admin's "run now" for scheduled jobs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { codeOf } from '../../helpers/totp-reference.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { twoFactorUser } from './console-browser.ts';

const CONSOLE = { 'x-console-request': '1' };

describe('the console session', () => {
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  const post = (url: string, payload?: object, headers: Record<string, string> = CONSOLE) =>
    t.app.inject({ method: 'POST', url, payload, headers, remoteAddress: '10.20.30.40' });
  /** The refresh cookie set: one, beside at most the device cookie of a completed sign-in (decision 196). */
  const cookieOf = (response: LightMyRequestResponse) => {
    const header = response.headers['set-cookie'];
    const all = header === undefined ? [] : [header].flat().map(String);
    const refresh = all.filter((c) => c.startsWith('tp_console_refresh='));
    assert.equal(refresh.length, 1, `one refresh cookie: ${JSON.stringify(all)}`);
    assert.ok(
      all.every((c) => c === refresh[0] || c.startsWith('tp_device=')),
      `nothing else: ${JSON.stringify(all)}`,
    );
    return refresh[0]!;
  };
  const cookieValue = (setCookie: string) => /^tp_console_refresh=([^;]*)/.exec(setCookie)![1]!;
  const withCookie = (value: string) => ({ ...CONSOLE, cookie: `tp_console_refresh=${value}` });
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });

  describe('POST /api/console/session/login', () => {
    it(
      'answers the access token only and sets the refresh token as an HttpOnly, SameSite=Strict ' +
        'cookie on /api/console/session',
      async () => {
        const user = await signIn(t.app, t.database);
        const response = await post('/api/console/session/login', { email: user.email, password: user.password });
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json();
        assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
        assert.equal(body.token_type, 'bearer');
        assert.equal(response.headers['cache-control'], 'no-store');
        const cookie = cookieOf(response);
        assert.match(
          cookie,
          /^tp_console_refresh=[^;]{20,}; Path=\/api\/console\/session; Max-Age=2592000; HttpOnly; SameSite=Strict$/,
        );
        assert.equal(cookie.includes(body.access_token), false);
        const account = await me(body.access_token);
        assert.equal(account.statusCode, 200);
        assert.equal(account.json().email, user.email);
      },
    );

    it(
      'refuses a request without the console header (422) or from another origin ' +
        '(403), before checking the password',
      async () => {
        const user = await signIn(t.app, t.database);
        const bare = await post('/api/console/session/login', { email: user.email, password: user.password }, {});
        assert.equal(bare.statusCode, 422);
        assert.deepEqual(
          bare.json().detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
          [['missing', ['header', 'x-console-request']]],
        );
        assert.equal(bare.headers['set-cookie'], undefined);
        const wrong = await post(
          '/api/console/session/login',
          { email: user.email, password: user.password },
          { 'x-console-request': 'yes' },
        );
        assert.equal(wrong.statusCode, 422);
        assert.equal(wrong.headers['set-cookie'], undefined);
        const foreign = await post(
          '/api/console/session/login',
          { email: user.email, password: user.password },
          { ...CONSOLE, origin: 'https://evil.example' },
        );
        assert.equal(foreign.statusCode, 403);
        assert.deepEqual(foreign.json(), { detail: 'Cross-site request refused' });
        assert.equal(foreign.headers['set-cookie'], undefined);
        const same = await post(
          '/api/console/session/login',
          { email: user.email, password: user.password },
          { ...CONSOLE, origin: 'http://localhost:80' },
        );
        assert.equal(same.statusCode, 200, same.body);
      },
    );

    it('answers 401 for a wrong password and 422 for a missing field, without a cookie', async () => {
      const user = await signIn(t.app, t.database);
      const wrong = await post('/api/console/session/login', { email: user.email, password: 'not-the-password' });
      assert.equal(wrong.statusCode, 401);
      assert.equal(typeof wrong.json().detail, 'string');
      assert.equal(wrong.headers['set-cookie'], undefined);
      const missing = await post('/api/console/session/login', { email: user.email });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(
        missing.json().detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
        [['missing', ['body', 'password']]],
      );
    });
  });

  describe('POST /api/console/session/refresh', () => {
    it('rotates the cookie for a new access token; the spent cookie presented again ends the session', async () => {
      const user = await signIn(t.app, t.database);
      const first = cookieValue(
        cookieOf(await post('/api/console/session/login', { email: user.email, password: user.password })),
      );
      const refreshed = await post('/api/console/session/refresh', undefined, withCookie(first));
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.deepEqual(Object.keys(refreshed.json()).sort(), ['access_token', 'expires_in', 'token_type']);
      const second = cookieValue(cookieOf(refreshed));
      assert.notEqual(second, first);
      assert.equal((await me(refreshed.json().access_token)).statusCode, 200);

      const replay = await post('/api/console/session/refresh', undefined, withCookie(first));
      assert.equal(replay.statusCode, 401);
      assert.match(
        cookieOf(replay),
        /^tp_console_refresh=; Path=\/api\/console\/session; Max-Age=0; HttpOnly; SameSite=Strict$/,
      );
      // Reuse revoked the session: its current cookie no longer works either.
      assert.equal((await post('/api/console/session/refresh', undefined, withCookie(second))).statusCode, 401);
    });

    it(
      'answers 401 "Not signed in" without a cookie, 422 ' + 'without the console header, 403 from another origin',
      async () => {
        const none = await post('/api/console/session/refresh');
        assert.equal(none.statusCode, 401);
        assert.deepEqual(none.json(), { detail: 'Not signed in' });
        const bare = await post('/api/console/session/refresh', undefined, { cookie: 'tp_console_refresh=abc' });
        assert.equal(bare.statusCode, 422);
        assert.equal(bare.headers['set-cookie'], undefined);
        const foreign = await post('/api/console/session/refresh', undefined, {
          ...withCookie('abc'),
          origin: 'https://evil.example',
        });
        assert.equal(foreign.statusCode, 403);
      },
    );

    it('answers 403 once the account is suspended, and clears the cookie', async () => {
      const user = await signIn(t.app, t.database);
      const cookie = cookieValue(
        cookieOf(await post('/api/console/session/login', { email: user.email, password: user.password })),
      );
      const suspend = await t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${user.id}`,
        headers: admin.headers,
        payload: { status: 'suspended' },
      });
      assert.equal(suspend.statusCode, 200, suspend.body);
      const refreshed = await post('/api/console/session/refresh', undefined, withCookie(cookie));
      assert.ok([401, 403].includes(refreshed.statusCode), `${refreshed.statusCode} ${refreshed.body}`);
      assert.match(cookieOf(refreshed), /Max-Age=0/);
    });
  });

  describe('two-factor sign-in', () => {
    it('answers the challenge without a cookie, then sets the cookie when the code is right', async () => {
      const user = await twoFactorUser(t);

      const login = await post('/api/console/session/login', { email: user.email, password: user.password });
      assert.equal(login.statusCode, 200, login.body);
      const challenge = login.json();
      assert.equal(challenge.mfa_required, true);
      assert.deepEqual(challenge.methods, ['totp', 'recovery_code']);
      assert.equal(login.headers['set-cookie'], undefined);

      const wrong = await post('/api/console/session/2fa', {
        mfa_token: challenge.mfa_token,
        code: codeOf(user.secret) === '000000' ? '111111' : '000000',
      });
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.headers['set-cookie'], undefined);
      // The enable spent this step's code: the next step's code is accepted (one step of drift).
      const verified = await post('/api/console/session/2fa', {
        mfa_token: challenge.mfa_token,
        code: codeOf(user.secret, new Date(Date.now() + 30_000)),
      });
      assert.equal(verified.statusCode, 200, verified.body);
      assert.match(cookieOf(verified), /^tp_console_refresh=[^;]{20,}; Path=\/api\/console\/session;/);
      assert.equal((await me(verified.json().access_token)).json().twoFactorEnabled, true);
    });

    it('the second-factor routes refuse a request without the console header (422) or from another origin (403)', async () => {
      const routes = [
        ['/api/console/session/2fa', { mfa_token: 'a'.repeat(43), code: '123456' }, {}],
        ['/api/console/session/step-up', { code: '123456' }, admin.headers],
      ] as const;
      for (const [url, body, auth] of routes) {
        const bare = await post(url, body, { ...auth });
        assert.equal(bare.statusCode, 422, `${url}: ${bare.body}`);
        assert.deepEqual(
          bare.json<{ detail: { loc: string[] }[] }>().detail.map((issue) => issue.loc),
          [['header', 'x-console-request']],
        );
        const crossSite = await post(url, body, { ...CONSOLE, ...auth, origin: 'https://evil.example' });
        assert.equal(crossSite.statusCode, 403, `${url}: ${crossSite.body}`);
        assert.deepEqual(crossSite.json(), { detail: 'Cross-site request refused' });
        assert.equal(crossSite.headers['set-cookie'], undefined);
      }
    });

    it('step-up needs a signed-in session (401 without a token)', async () => {
      const response = await post('/api/console/session/step-up', { code: '123456' });
      assert.equal(response.statusCode, 401);
    });
  });

  describe('POST /api/console/session/logout', () => {
    it('ends the session and clears the cookie; the cookie then no longer refreshes', async () => {
      const user = await signIn(t.app, t.database);
      const login = await post('/api/console/session/login', { email: user.email, password: user.password });
      const cookie = cookieValue(cookieOf(login));
      const out = await post('/api/console/session/logout', undefined, {
        ...withCookie(cookie),
        authorization: `Bearer ${login.json().access_token}`,
      });
      assert.equal(out.statusCode, 200);
      assert.deepEqual(out.json(), { success: true });
      assert.match(cookieOf(out), /^tp_console_refresh=; Path=\/api\/console\/session; Max-Age=0;/);
      assert.equal((await post('/api/console/session/refresh', undefined, withCookie(cookie))).statusCode, 401);
    });

    it(
      'clears the cookie even without a valid token, and ' + 'refuses a call without the header or from elsewhere',
      async () => {
        const out = await post('/api/console/session/logout', undefined, {
          ...CONSOLE,
          authorization: 'Bearer not-a-token',
        });
        assert.equal(out.statusCode, 200);
        assert.match(cookieOf(out), /Max-Age=0/);
        assert.equal((await post('/api/console/session/logout', undefined, {})).statusCode, 422);
        assert.equal(
          (await post('/api/console/session/logout', undefined, { ...CONSOLE, origin: 'http://evil.example' }))
            .statusCode,
          403,
        );
      },
    );
  });

  describe('POST /api/console/jobs/:job_name/run', () => {
    it('starts a job for an admin and answers its run', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/console/jobs/cleanup-expired-tokens/run',
        headers: admin.headers,
      });
      assert.ok([200, 202].includes(response.statusCode), response.body);
      const body = response.json();
      assert.match(body.run_id, /^[0-9a-f-]{36}$/);
      assert.ok(['running', 'succeeded'].includes(body.status), body.status);
    });

    it('is for admins only: 401 without a token, 403 for a user, 422 for an unknown job', async () => {
      const user = await signIn(t.app, t.database);
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/console/jobs/cleanup-expired-tokens/run' })).statusCode,
        401,
      );
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/console/jobs/cleanup-expired-tokens/run',
            headers: user.headers,
          })
        ).statusCode,
        403,
      );
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/api/console/jobs/no-such-job/run',
        headers: admin.headers,
      });
      assert.equal(unknown.statusCode, 422);
      assert.deepEqual(unknown.json().detail[0].loc, ['path', 'job_name']);
    });
  });
});
