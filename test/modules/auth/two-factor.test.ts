// Two-factor sign-in (issue 23; decisions 140, 141): enrollment, the second step of a sign-in,
// replay and drift, the login throttle, recovery codes, disabling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { MFA_TOKEN_TTL_MS } from '../../../src/modules/auth/auth.service.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { matchingStep, totpCode } from '../../../src/modules/auth/totp.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { base32, decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const RFC_KEY = Buffer.from('12345678901234567890', 'ascii');
/** RFC 6238 appendix B, SHA-1: time → 8-digit code. */
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP arithmetic', () => {
  it('the reference implementation in this test reproduces RFC 6238 appendix B (8 digits)', () => {
    for (const [time, code] of RFC_VECTORS) assert.equal(referenceTotp(RFC_KEY, time, 8), code, `T=${time}`);
  });

  it('our codes are the last 6 digits of the RFC vectors (SHA-1, 30 s)', () => {
    const secret = base32(RFC_KEY);
    assert.equal(secret, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    for (const [time, code] of RFC_VECTORS)
      assert.equal(totpCode(secret, new Date(time * 1000)), code.slice(-6), `T=${time}`);
    assert.equal(totpCode(secret, new Date(59_000)), '287082');
  });

  it('accepts a code one step either side of now and no further', () => {
    const secret = base32(RFC_KEY);
    const now = new Date(1_111_111_111_000);
    const step = Math.floor(now.getTime() / 30_000);
    for (const delta of [-1, 0, 1]) {
      const code = referenceTotp(RFC_KEY, (step + delta) * 30, 6);
      assert.equal(matchingStep(secret, code, now), step + delta, `delta ${delta}`);
    }
    for (const delta of [-2, 2])
      assert.equal(
        matchingStep(secret, referenceTotp(RFC_KEY, (step + delta) * 30, 6), now),
        undefined,
        `delta ${delta}`,
      );
    assert.equal(matchingStep(secret, 'abcdef', now), undefined);
  });
});

describe('two-factor sign-in', () => {
  let t: TestApp;
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  before(async () => {
    t = await buildTestApp({ clock });
  });
  after(async () => {
    await t.close();
  });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress });
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
  /** The code of the step `delta` steps from the clock's, computed by the reference implementation. */
  const codeAt = (secret: string, delta = 0) => {
    const key = Buffer.from(decodeBase32(secret));
    return referenceTotp(key, Math.floor(clock.now().getTime() / 30_000 + delta) * 30, 6);
  };
  /** Moves the clock to the start of the next 30-second step (and 5 s into it). */
  const nextStep = () => clock.set(new Date((Math.floor(clock.now().getTime() / 30_000) + 1) * 30_000 + 5_000));

  /** A signed-in user with two-factor on: its secret and recovery codes. */
  async function enrolled(): Promise<TestUser & { secret: string; recoveryCodes: string[] }> {
    const user = await signIn(t.app, t.database);
    const setup = await post('/api/auth/2fa/setup', { password: user.password }, user.headers);
    assert.equal(setup.statusCode, 200, setup.body);
    const { secret } = setup.json<{ secret: string }>();
    const enable = await post('/api/auth/2fa/enable', { code: codeAt(secret) }, user.headers);
    assert.equal(enable.statusCode, 200, enable.body);
    nextStep();
    return { ...user, secret, recoveryCodes: enable.json<{ recovery_codes: string[] }>().recovery_codes };
  }

  const login = (user: { email: string; password: string }, remoteAddress = '10.9.9.9') =>
    post('/api/auth/login', { email: user.email, password: user.password }, {}, remoteAddress);
  const challenge = async (user: { email: string; password: string }, remoteAddress?: string) => {
    const response = await login(user, remoteAddress);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ mfa_token: string }>().mfa_token;
  };

  describe('enrollment', () => {
    it('sets up a sealed secret, turns on with a right code and answers ten recovery codes once', async () => {
      const user = await signIn(t.app, t.database);
      const setup = await post('/api/auth/2fa/setup', { password: user.password }, user.headers);
      assert.equal(setup.statusCode, 200, setup.body);
      const body = setup.json<{ secret: string; otpauth_url: string; qr_svg: string }>();
      assert.match(body.secret, /^[A-Z2-7]{32}$/);
      const url = new URL(body.otpauth_url);
      assert.equal(url.protocol, 'otpauth:');
      assert.equal(url.host, 'totp');
      assert.equal(url.searchParams.get('secret'), body.secret);
      assert.equal(url.searchParams.get('issuer'), 'Trading Platform');
      assert.ok(decodeURIComponent(url.pathname).includes(user.email));
      assert.match(body.qr_svg, /^<svg[\s\S]*<\/svg>\s*$/);
      assert.equal(setup.headers['cache-control'], 'no-store');

      assert.equal((await me(user.token)).json().twoFactorEnabled, false, 'not on before a code confirms it');
      const [row] = await t.database.rows<{ sealed: string }>(
        sql`SELECT totp_secret_sealed AS sealed FROM users WHERE id = ${user.id}`,
      );
      assert.ok(row!.sealed.startsWith('v2:') && !row!.sealed.includes(body.secret), 'the secret is sealed at rest');

      assertIssue(
        await post(
          '/api/auth/2fa/enable',
          { code: '000000' === codeAt(body.secret) ? '111111' : '000000' },
          user.headers,
        ),
        ['body', 'code'],
        'value_error',
      );
      const enable = await post('/api/auth/2fa/enable', { code: codeAt(body.secret) }, user.headers);
      assert.equal(enable.statusCode, 200, enable.body);
      const codes = enable.json<{ recovery_codes: string[] }>().recovery_codes;
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);
      assert.equal((await me(user.token)).json().twoFactorEnabled, true);

      const stored = await t.database.rows<{ code_hash: string }>(
        sql`SELECT code_hash FROM two_factor_recovery_codes WHERE user_id = ${user.id}`,
      );
      assert.equal(stored.length, 10);
      for (const code of codes)
        assert.ok(!stored.some((s) => s.code_hash.includes(code.replace('-', ''))), 'only hashes are stored');
      assert.ok(!t.logText().includes(body.secret), 'the secret is never logged');

      assertDetail(await post('/api/auth/2fa/setup', { password: user.password }, user.headers), 409);
      assertDetail(await post('/api/auth/2fa/enable', { code: codeAt(body.secret) }, user.headers), 409);
    });

    it('refuses a wrong password (400) and an enable without a setup (409)', async () => {
      const user = await signIn(t.app, t.database);
      assertDetail(
        await post('/api/auth/2fa/setup', { password: 'not the password' }, user.headers),
        400,
        'Password is incorrect',
      );
      assertDetail(await post('/api/auth/2fa/enable', { code: '123456' }, user.headers), 409);
      assertIssue(await post('/api/auth/2fa/setup', {}, user.headers), ['body', 'password'], 'missing');
    });

    it('needs a signed-in user', async () => {
      for (const url of ['/api/auth/2fa/setup', '/api/auth/2fa/enable', '/api/auth/2fa/disable']) {
        assertDetail(await post(url, { password: 'x', code: '123456' }), 401);
      }
    });
  });

  describe('sign-in', () => {
    it('answers mfa_required and no tokens, then the token pair for a right code; the token works once', async () => {
      const user = await enrolled();
      const response = await login(user);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['methods', 'mfa_required', 'mfa_token']);
      assert.equal(body.mfa_required, true);
      assert.deepEqual(body.methods, ['totp', 'recovery_code']);

      const verified = await post('/api/auth/2fa/verify', { mfa_token: body.mfa_token, code: codeAt(user.secret) });
      assert.equal(verified.statusCode, 200, verified.body);
      const pair = verified.json<{ access_token: string; refresh_token: string; token_type: string }>();
      assert.equal(pair.token_type, 'bearer');
      assert.equal((await me(pair.access_token)).statusCode, 200);
      const claims = JSON.parse(Buffer.from(pair.access_token.split('.')[1]!, 'base64url').toString());
      assert.deepEqual(claims.amr, ['pwd', 'mfa', 'otp']);
      assert.equal(claims.auth_time, Math.floor(clock.now().getTime() / 1000));

      nextStep();
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: body.mfa_token, code: codeAt(user.secret) }),
        401,
        'Invalid or expired mfa_token; sign in again',
      );
    });

    it('never accepts one code twice, even on a fresh sign-in, and refuses an older step after a newer one', async () => {
      const user = await enrolled();
      const code = codeAt(user.secret);
      assert.equal((await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code })).statusCode, 200);
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code }),
        401,
        'Invalid two-factor code',
      );
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code: codeAt(user.secret, -1) }),
        401,
        'Invalid two-factor code',
      );
    });

    it('accepts a code one step behind or ahead of the clock, and not two', async () => {
      const user = await enrolled();
      nextStep();
      nextStep();
      assert.equal(
        (await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code: codeAt(user.secret, -1) }))
          .statusCode,
        200,
        'one step behind',
      );
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code: codeAt(user.secret, 2) }),
        401,
      );
      assert.equal(
        (await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code: codeAt(user.secret, 1) }))
          .statusCode,
        200,
        'one step ahead',
      );
    });

    it('lets the mfa_token expire after 5 minutes', async () => {
      const user = await enrolled();
      const token = await challenge(user);
      clock.advance(MFA_TOKEN_TTL_MS + 1000);
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: token, code: codeAt(user.secret) }),
        401,
        'Invalid or expired mfa_token; sign in again',
      );
      await challenge(user);
      const rows = await t.database.rows(sql`SELECT 1 FROM mfa_challenges WHERE user_id = ${user.id}`);
      assert.equal(rows.length, 1, 'the next sign-in removes the dead challenges');
    });

    it('counts wrong codes in the login throttle; a right one gives the attempts back', async () => {
      const user = await enrolled();
      const address = newClientAddress();
      const token = await challenge(user, address);
      const wrong = codeAt(user.secret) === '000000' ? '111111' : '000000';
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient - 1; i++)
        assertDetail(await post('/api/auth/2fa/verify', { mfa_token: token, code: wrong }, {}, address), 401);
      assert.equal(
        (await post('/api/auth/2fa/verify', { mfa_token: token, code: codeAt(user.secret) }, {}, address)).statusCode,
        200,
      );

      nextStep();
      const again = await challenge(user, address);
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++)
        assertDetail(await post('/api/auth/2fa/verify', { mfa_token: again, code: wrong }, {}, address), 401);
      const limited = await post('/api/auth/2fa/verify', { mfa_token: again, code: codeAt(user.secret) }, {}, address);
      assertDetail(limited, 429, 'Too many login attempts; try again later');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      const failures = await t.database.rows(
        sql`SELECT 1 FROM audit_log WHERE action = 'auth.2fa_failed' AND subject_user_id = ${user.id}`,
      );
      assert.equal(failures.length, LOGIN_LIMITS.perAccountAndClient * 2 - 1);
    });

    it('takes a recovery code once, audits it and mails the owner', async () => {
      const user = await enrolled();
      const [first] = user.recoveryCodes;
      const verified = await post('/api/auth/2fa/verify', {
        mfa_token: await challenge(user),
        recovery_code: first!.toUpperCase(),
      });
      assert.equal(verified.statusCode, 200, verified.body);
      const claims = JSON.parse(Buffer.from(verified.json().access_token.split('.')[1], 'base64url').toString());
      assert.deepEqual(claims.amr, ['pwd', 'mfa', 'rc']);
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), recovery_code: first }),
        401,
        'Invalid two-factor code',
      );

      const audited = await t.database.rows<{ details: { remaining: number } }>(
        sql`SELECT details FROM audit_log WHERE action = 'auth.2fa.recovery_code_used' AND subject_user_id = ${user.id}`,
      );
      assert.equal(audited.length, 1);
      assert.equal(audited[0]!.details.remaining, 9);
      const mails = await t.database.rows<{ to: string; subject: string }>(
        sql`SELECT payload->>'to' AS "to", payload->>'subject' AS subject FROM outbox WHERE kind = 'mail.send' AND payload->>'to' = ${user.email}`,
      );
      assert.deepEqual(
        mails.map((m) => m.subject),
        ['A recovery code was used on your account'],
      );
    });

    it('wants exactly one of code and recovery_code', async () => {
      const user = await enrolled();
      const token = await challenge(user);
      assertIssue(await post('/api/auth/2fa/verify', { mfa_token: token }), ['body', 'code'], 'missing');
      assertIssue(
        await post('/api/auth/2fa/verify', {
          mfa_token: token,
          code: codeAt(user.secret),
          recovery_code: user.recoveryCodes[0],
        }),
        ['body', 'code'],
        'value_error',
      );
      assertDetail(
        await post('/api/auth/2fa/verify', { mfa_token: 'made-up', code: codeAt(user.secret) }),
        401,
        'Invalid or expired mfa_token; sign in again',
      );
    });

    it('a user without two-factor still gets the token pair at login', async () => {
      const user = await signIn(t.app, t.database);
      const response = await login(user);
      assert.ok(response.json().access_token);
    });
  });

  describe('disable', () => {
    it('needs the password and a code, signs other sessions out, and login needs no second factor after', async () => {
      const user = await enrolled();
      const other = await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), code: codeAt(user.secret) });
      assert.equal(other.statusCode, 200);
      nextStep();
      assertDetail(
        await post('/api/auth/2fa/disable', { password: 'wrong', code: codeAt(user.secret) }, user.headers),
        400,
        'Password is incorrect',
      );
      assertIssue(
        await post('/api/auth/2fa/disable', { password: user.password, code: codeAt(user.secret, -1) }, user.headers),
        ['body', 'code'],
        'value_error',
      );
      const disabled = await post(
        '/api/auth/2fa/disable',
        { password: user.password, code: codeAt(user.secret) },
        user.headers,
      );
      assert.equal(disabled.statusCode, 200, disabled.body);
      assert.equal((await me(user.token)).json().twoFactorEnabled, false);
      assert.equal((await me(other.json().access_token)).statusCode, 401, 'the other session is signed out');
      assert.ok((await login(user)).json().access_token);
      assertDetail(
        await post('/api/auth/2fa/disable', { password: user.password, code: codeAt(user.secret) }, user.headers),
        409,
      );
    });

    it('takes a recovery code instead of a code', async () => {
      const user = await enrolled();
      const disabled = await post(
        '/api/auth/2fa/disable',
        { password: user.password, recovery_code: user.recoveryCodes[3] },
        user.headers,
      );
      assert.equal(disabled.statusCode, 200, disabled.body);
      const [row] = await t.database.rows<{ sealed: string | null; codes: number }>(
        sql`SELECT totp_secret_sealed AS sealed, (SELECT count(*)::int FROM two_factor_recovery_codes WHERE user_id = ${user.id}) AS codes FROM users WHERE id = ${user.id}`,
      );
      assert.deepEqual(row, { sealed: null, codes: 0 });
    });
  });

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

    it('lets a fresh second factor create credentials, refuses a stale one with 403, and a step-up renews it', async () => {
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
    });

    it('asks nothing more of an account without two-factor; step-up then answers 409, and 401 without a token', async () => {
      const user = await signIn(t.app, t.database);
      clock.advance(11 * 60_000);
      const fresh = await signIn(t.app, t.database);
      assert.equal((await createCredential(fresh.token, 'plain')).statusCode, 201);
      assertDetail(await post('/api/auth/2fa/step-up', { code: '123456' }, fresh.headers), 409);
      assertDetail(await post('/api/auth/2fa/step-up', { code: '123456' }), 401);
      assert.ok(user.id);
    });

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

    it("resets a user's second factor with twoFactorEnabled false: audited, every session revoked, login without a code after", async () => {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const user = await enrolled();
      const response = await patch(admin, user.id, { twoFactorEnabled: false });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().twoFactorEnabled, false);
      assert.equal((await me(user.token)).statusCode, 401, 'the user is signed out');
      const [row] = await t.database.rows<{ sealed: string | null; codes: number }>(
        sql`SELECT totp_secret_sealed AS sealed, (SELECT count(*)::int FROM two_factor_recovery_codes WHERE user_id = ${user.id}) AS codes FROM users WHERE id = ${user.id}`,
      );
      assert.deepEqual(row, { sealed: null, codes: 0 });
      const audited = await t.database.rows<{ actor_id: string }>(
        sql`SELECT actor_id FROM audit_log WHERE action = 'admin.user.2fa_reset' AND subject_user_id = ${user.id}`,
      );
      assert.deepEqual(audited, [{ actor_id: admin.id }]);
      assert.ok((await login(user)).json().access_token, 'the password alone signs in again');
    });

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
