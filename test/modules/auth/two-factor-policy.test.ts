// Two-factor policy (issue 23; decisions 140, 141): operations that want a fresh second factor and
// the step-up that renews it, an admin's reset of a user's second factor, and roles that must enroll.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { useTwoFactorApp } from './two-factor-fixtures.ts';

describe('two-factor sign-in', () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  const { t, post, me, codeAt, nextStep, enrolled, login, challenge } = useTwoFactorApp(clock);

  describe('step-up', () => {
    const claimsOf = (token: string) => {
      const { auth_time, amr } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
        auth_time: number;
        amr: string[];
      };
      return { auth_time, amr };
    };
    const createCredential = (token: string, name: string) =>
      post(
        '/api/exchange/credentials',
        {
          exchange_name: 'binance',
          credential_name: name,
          api_key: 'step-up-key-0001',
          api_secret: 'step-up-secret-01',
        },
        { authorization: `Bearer ${token}` },
      );

    it(
      'lets a fresh second factor create credentials, ' + 'refuses a stale one with 403, and a step-up renews it',
      async () => {
        const user = await enrolled();
        const signedIn = await post('/api/auth/2fa/verify', {
          mfa_token: await challenge(user),
          code: codeAt(user.secret),
        });
        const pair = signedIn.json<{ access_token: string; refresh_token: string }>();
        assert.equal((await createCredential(pair.access_token, 'first')).statusCode, 201);

        clock.advance(10 * 60_000 + 1_000);
        assertDetail(await createCredential(pair.access_token, 'second'), 403, 'Second factor required');
        const refreshed = await post('/api/auth/refresh', { refresh_token: pair.refresh_token });
        assert.equal(refreshed.statusCode, 200);
        assert.deepEqual(
          claimsOf(refreshed.json().access_token),
          claimsOf(pair.access_token),
          'a refresh keeps auth_time and amr',
        );
        assertDetail(await createCredential(refreshed.json().access_token, 'second'), 403, 'Second factor required');
        const headers = { authorization: `Bearer ${refreshed.json().access_token}` };
        assertDetail(
          await post(
            '/api/auth/password',
            { current_password: user.password, new_password: 'another password 1' },
            headers,
          ),
          403,
          'Second factor required',
        );
        assertDetail(
          await post('/api/auth/tokens', { name: 'bot', scopes: ['account:read'] }, headers),
          403,
          'Second factor required',
        );

        nextStep();
        assertDetail(
          await post('/api/auth/2fa/step-up', { code: codeAt(user.secret, -2) }, headers),
          401,
          'Invalid two-factor code',
        );
        const stepped = await post('/api/auth/2fa/step-up', { code: codeAt(user.secret) }, headers);
        assert.equal(stepped.statusCode, 200, stepped.body);
        const fresh = stepped.json<{ access_token: string }>().access_token;
        assert.equal(claimsOf(fresh).auth_time, Math.floor(clock.now().getTime() / 1000));
        assert.equal((await createCredential(fresh, 'second')).statusCode, 201);
        assert.equal(
          (
            await post(
              '/api/auth/password',
              { current_password: user.password, new_password: 'another password 1' },
              { authorization: `Bearer ${fresh}` },
            )
          ).statusCode,
          200,
        );
      },
    );

    it('a password-only session that turns two-factor on must still prove a second factor to step up', async () => {
      const user = await signIn(t.app, t.database);
      const setup = await post('/api/auth/2fa/setup', { password: user.password }, user.headers);
      const { secret } = setup.json<{ secret: string }>();
      assert.equal((await post('/api/auth/2fa/enable', { code: codeAt(secret) }, user.headers)).statusCode, 200);
      assert.deepEqual(claimsOf(user.token).amr, ['pwd'], 'its access token was issued for the password alone');

      // A fresh token (auth_time within STEP_UP_MAX_AGE_MINUTES), but no second factor in its amr.
      assertDetail(await createCredential(user.token, 'enabled here'), 403, 'Second factor required');
      assertDetail(
        await post('/api/auth/tokens', { name: 'bot', scopes: ['account:write'] }, user.headers),
        403,
        'Second factor required',
      );

      nextStep();
      const stepped = await post('/api/auth/2fa/step-up', { code: codeAt(secret) }, user.headers);
      assert.equal(stepped.statusCode, 200, stepped.body);
      assert.equal((await createCredential(stepped.json().access_token, 'stepped up')).statusCode, 201);
    });

    it(
      'asks nothing more of an account without two-factor; ' + 'step-up then answers 409, and 401 without a token',
      async () => {
        const user = await signIn(t.app, t.database);
        clock.advance(11 * 60_000);
        const fresh = await signIn(t.app, t.database);
        assert.equal((await createCredential(fresh.token, 'plain')).statusCode, 201);
        assertDetail(await post('/api/auth/2fa/step-up', { code: '123456' }, fresh.headers), 409);
        assertDetail(await post('/api/auth/2fa/step-up', { code: '123456' }), 401);
        assert.ok(user.id);
      },
    );

    it('documents which operations need a step-up', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
        paths: Record<string, Record<string, Record<string, unknown>>>;
      }>();
      assert.equal(document.paths['/api/exchange/credentials']!.post!['x-step-up'], true);
      assert.equal(document.paths['/api/auth/password']!.post!['x-step-up'], true);
      assert.equal(document.paths['/api/exchange/credentials']!.get!['x-step-up'], undefined);
    });
  });

  describe('admins', () => {
    const patch = (admin: TestUser, userId: string, payload: unknown) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${userId}`,
        payload: payload as object,
        headers: admin.headers,
      });

    it(
      "resets a user's second factor with twoFactorEnabled false: audited, every session " +
        'revoked, login without a code after',
      async () => {
        const admin = await signIn(t.app, t.database, { role: 'admin' });
        const user = await enrolled();
        const response = await patch(admin, user.id, { twoFactorEnabled: false });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().twoFactorEnabled, false);
        assert.equal((await me(user.token)).statusCode, 401, 'the user is signed out');
        const [row] = await t.database.rows<{ sealed: string | null; codes: number }>(
          sql`SELECT totp_secret_sealed AS sealed,
            (SELECT count(*)::int FROM two_factor_recovery_codes WHERE user_id = ${user.id}) AS codes
            FROM users WHERE id = ${user.id}`,
        );
        assert.deepEqual(row, { sealed: null, codes: 0 });
        const audited = await t.database.rows<{ actor_id: string }>(
          sql`SELECT actor_id FROM audit_log WHERE action = 'admin.user.2fa_reset' AND subject_user_id = ${user.id}`,
        );
        assert.deepEqual(audited, [{ actor_id: admin.id }]);
        assert.ok((await login(user)).json().access_token, 'the password alone signs in again');
      },
    );

    it('refuses twoFactorEnabled true: the user enrolls themselves', async () => {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const user = await signIn(t.app, t.database);
      const issue = assertIssue(
        await patch(admin, user.id, { twoFactorEnabled: true }),
        ['body', 'twoFactorEnabled'],
        'value_error',
      );
      assert.match(issue.msg, /the user enrolls themselves/);
      assert.equal((await me(user.token)).json().twoFactorEnabled, false);
      assertDetail(await patch(user, user.id, { twoFactorEnabled: false }), 403);
    });
  });
});

describe('REQUIRE_2FA_ROLES', () => {
  let t: TestApp;
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  before(async () => {
    t = await buildTestApp({ clock, env: { REQUIRE_2FA_ROLES: 'admin' } });
  });
  after(async () => {
    await t.close();
  });

  it('lets such a user without two-factor do nothing but enroll; once enrolled, everything', async () => {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const user = await signIn(t.app, t.database);
    const get = (who: TestUser, url: string) => t.app.inject({ method: 'GET', url, headers: who.headers });
    assertDetail(await get(admin, '/api/admin/users'), 403, 'Two-factor authentication required');
    assert.equal((await get(admin, '/api/auth/me')).statusCode, 200, '/api/auth/* stays open');
    assert.equal((await get(user, '/api/exchange/credentials')).statusCode, 200, 'other roles are not concerned');

    const setup = await t.app.inject({
      method: 'POST',
      url: '/api/auth/2fa/setup',
      payload: { password: admin.password },
      headers: admin.headers,
    });
    assert.equal(setup.statusCode, 200, setup.body);
    const key = Buffer.from(decodeBase32(setup.json().secret));
    const code = referenceTotp(key, Math.floor(clock.now().getTime() / 1000), 6);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/auth/2fa/enable', payload: { code }, headers: admin.headers }))
        .statusCode,
      200,
    );
    assert.equal((await get(admin, '/api/admin/users')).statusCode, 200);
  });
});
