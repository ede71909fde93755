// Two-factor sign-in (issue 23; decisions 140, 141): the TOTP arithmetic, enrollment, the second
// step of a sign-in, replay and drift, the login throttle, recovery codes, disabling. Step-up, the
// admins' reset and required roles are in two-factor-policy.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { MFA_TOKEN_TTL_MS } from '../../../src/modules/auth/auth.service.ts';
import { SECOND_FACTOR_LIMITS } from '../../../src/modules/auth/second-factor-attempts.ts';
import { matchingStep, totpCode } from '../../../src/modules/auth/totp.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { base32, referenceTotp } from '../../helpers/totp-reference.ts';
import { newClientAddress, signIn } from '../../helpers/test-app.ts';
import { useTwoFactorApp } from './two-factor-fixtures.ts';

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
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  const { t, post, me, codeAt, nextStep, enrolled, login, challenge } = useTwoFactorApp(clock);

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

    it(
      'never accepts one code twice, even on a fresh ' + 'sign-in, and refuses an older step after a newer one',
      async () => {
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
      },
    );

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

    it('counts wrong codes per account; a right one gives back its own attempt only', async () => {
      const user = await enrolled();
      const address = newClientAddress();
      const token = await challenge(user, address);
      const wrong = codeAt(user.secret) === '000000' ? '111111' : '000000';
      const { perWindow } = SECOND_FACTOR_LIMITS;
      for (let i = 0; i < perWindow - 1; i++)
        assertDetail(await post('/api/auth/2fa/verify', { mfa_token: token, code: wrong }, {}, address), 401);
      assert.equal(
        (await post('/api/auth/2fa/verify', { mfa_token: token, code: codeAt(user.secret) }, {}, address)).statusCode,
        200,
      );

      nextStep();
      // The right code forgave none of the wrong ones: one more, and code checks are locked.
      const again = await challenge(user, address);
      assertDetail(await post('/api/auth/2fa/verify', { mfa_token: again, code: wrong }, {}, address), 401);
      const limited = await post('/api/auth/2fa/verify', { mfa_token: again, code: codeAt(user.secret) }, {}, address);
      assertDetail(limited, 429, 'Too many wrong two-factor codes for this account; try again later');
      assert.ok(Number(limited.headers['retry-after']) > 0);
      const failures = await t.database.rows(
        sql`SELECT 1 FROM audit_log WHERE action = 'auth.2fa_failed' AND subject_user_id = ${user.id}`,
      );
      assert.equal(failures.length, perWindow);
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
        sql`SELECT details FROM audit_log
          WHERE action = 'auth.2fa.recovery_code_used' AND subject_user_id = ${user.id}`,
      );
      assert.equal(audited.length, 1);
      assert.equal(audited[0]!.details.remaining, 9);
      const mails = await t.database.rows<{ to: string; subject: string }>(
        sql`SELECT payload->>'to' AS "to", payload->>'subject' AS subject
          FROM outbox WHERE kind = 'mail.send' AND payload->>'to' = ${user.email}`,
      );
      assert.deepEqual(
        mails.map((m) => m.subject),
        ['A recovery code was used on your account'],
      );
    });

    it('spends no recovery code on a sign-in it cannot finish (decision 883)', async () => {
      const user = await enrolled();
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const patch = (status: string) =>
        t.app.inject({
          method: 'PATCH',
          url: `/api/admin/users/${user.id}`,
          headers: admin.headers,
          payload: { status },
        });
      const [code] = user.recoveryCodes;
      // The password was right; the account is suspended before the second factor comes.
      const pending = await challenge(user);
      assert.equal((await patch('suspended')).statusCode, 200);
      assertDetail(await post('/api/auth/2fa/verify', { mfa_token: pending, recovery_code: code }), 403);
      assert.equal((await patch('active')).statusCode, 200);
      // Reactivated, the owner still holds the code, and was not told it was used.
      const verified = await post('/api/auth/2fa/verify', { mfa_token: await challenge(user), recovery_code: code });
      assert.equal(verified.statusCode, 200, verified.body);
      const used = await t.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM audit_log
          WHERE action = 'auth.2fa.recovery_code_used' AND subject_user_id = ${user.id}`,
      );
      assert.equal(Number(used[0]!.n), 1);
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
        sql`SELECT totp_secret_sealed AS sealed,
          (SELECT count(*)::int FROM two_factor_recovery_codes WHERE user_id = ${user.id}) AS codes
          FROM users WHERE id = ${user.id}`,
      );
      assert.deepEqual(row, { sealed: null, codes: 0 });
    });
  });
});
