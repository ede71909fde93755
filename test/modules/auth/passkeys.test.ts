// Passkeys through the API (issue 41, decision 204), answered by a software authenticator: registering
// one turns two-factor on; signing in without a password, as the second factor of a password sign-in,
// and stepping up; listing, renaming and removing them; the rules that count a passkey as a second factor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { signIn } from '../../helpers/test-app.ts';
import { claimsOf, startPasskeyApp, type PasskeyApp } from './passkey-fixtures.ts';

describe('passkeys', () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  let p: PasskeyApp;
  before(async () => {
    p = await startPasskeyApp(clock);
  });
  after(async () => {
    await p.t.close();
  });
  const me = async (token: string) =>
    (await p.t.app.inject({ method: 'GET', url: '/api/auth/me', headers: p.bearer(token) })).json<{
      twoFactorEnabled: boolean;
    }>();

  describe('registration', () => {
    it('answers creation options for the signed-in user, and the verified passkey (201); two-factor is on', async () => {
      const user = await signIn(p.t.app, p.t.database);
      const started = await p.options<{
        challenge: string;
        rp: { id: string; name: string };
        user: { id: string; name: string };
        authenticatorSelection: { userVerification: string; residentKey: string };
        attestation: string;
      }>({ purpose: 'register', password: user.password }, user.headers);
      assert.equal(started.options.rp.id, 'localhost');
      assert.equal(started.options.user.name, user.email);
      assert.equal(started.options.authenticatorSelection.userVerification, 'required');
      assert.equal(started.options.attestation, 'none');
      const { response } = p.authenticator.create(started.options);
      const done = await p.verify({ challenge_token: started.challenge_token, response, name: 'Laptop' }, user.headers);
      assert.equal(done.statusCode, 201, done.body);
      const passkey = done.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(passkey).sort(), [
        'backed_up',
        'created_at',
        'id',
        'last_used_at',
        'name',
        'transports',
      ]);
      assert.equal(passkey.name, 'Laptop');
      assert.equal(passkey.last_used_at, null);
      assert.equal(passkey.backed_up, false);
      assert.deepEqual(passkey.transports, ['internal']);
      assert.equal((await me(user.token)).twoFactorEnabled, true);
      const listed = await p.t.app.inject({ method: 'GET', url: '/api/auth/passkeys', headers: user.headers });
      assert.deepEqual(listed.json(), [passkey]);
    });

    it('needs the password on an account without a second factor: a bearer alone cannot enrol one that locks the owner out', async () => {
      const owner = await signIn(p.t.app, p.t.database);
      // Whoever holds the owner's access token (and not the password) asks to enrol a passkey of their own.
      const missing = await p.post('/api/auth/passkeys/options', { purpose: 'register' }, owner.headers);
      assert.equal(missing.statusCode, 422, missing.body);
      assert.deepEqual(
        missing.json<{ detail: { loc: string[] }[] }>().detail.map((issue) => issue.loc),
        [['body', 'password']],
      );
      const wrong = await p.post(
        '/api/auth/passkeys/options',
        { purpose: 'register', password: 'not the password' },
        owner.headers,
      );
      assertDetail(wrong, 400, 'Password is incorrect');
      // Nothing was enrolled: the owner's password still signs in, with no second factor asked.
      assert.equal((await me(owner.token)).twoFactorEnabled, false);
      const login = await p.post('/api/auth/login', { email: owner.email, password: owner.password });
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json<{ mfa_required?: boolean }>().mfa_required, undefined, login.body);
      // The owner, with the password, enrols one.
      await p.register(owner, 'Laptop');
      assert.equal((await me(owner.token)).twoFactorEnabled, true);
    });

    it('needs the bearer: 401 without it, for register and step-up', async () => {
      for (const purpose of ['register', 'step-up']) {
        const response = await p.post('/api/auth/passkeys/options', { purpose });
        assertDetail(response, 401, `A passkey ${purpose} needs the bearer token of a signed-in session`);
        assert.equal(response.headers['www-authenticate'], 'Bearer');
        const expired = await p.post('/api/auth/passkeys/options', { purpose }, { authorization: 'Bearer nope' });
        assert.equal(expired.statusCode, 401);
      }
      const listed = await p.t.app.inject({ method: 'GET', url: '/api/auth/passkeys' });
      assert.equal(listed.statusCode, 401);
    });

    it('refuses a second passkey without a fresh second factor, and the same credential twice', async () => {
      const user = await p.passkeyUser();
      clock.advance(11 * 60_000);
      const stale = await p.post('/api/auth/passkeys/options', { purpose: 'register' }, user.headers);
      assertDetail(stale, 403, 'Second factor required');
      const stepped = await p.ceremony(user.passkey, { purpose: 'step-up' }, { headers: user.headers });
      assert.equal(stepped.answer.statusCode, 200, stepped.answer.body);
      const fresh = p.bearer(stepped.answer.json<{ access_token: string }>().access_token);
      const second = await p.register({ ...user, headers: fresh }, 'Phone');
      assert.notEqual(second.id, user.passkeyId);
      // The authenticator is asked not to make another for a user it holds one of.
      const again = await p.options<{ excludeCredentials: { id: string }[] }>({ purpose: 'register' }, fresh);
      assert.equal(again.options.excludeCredentials.length, 2);
    });
  });

  describe('signing in', () => {
    it('without a password: any passkey of this site (no e-mail), or the account of an e-mail', async () => {
      const user = await p.passkeyUser();
      const anyPasskey = await p.ceremony(user.passkey, { purpose: 'login' });
      assert.deepEqual(anyPasskey.started.options.allowCredentials, []);
      assert.equal(anyPasskey.answer.statusCode, 200, anyPasskey.answer.body);
      const pair = anyPasskey.answer.json<{ access_token: string; refresh_token: string; token_type: string }>();
      assert.equal(pair.token_type, 'bearer');
      assert.deepEqual(claimsOf(pair.access_token).amr, ['webauthn', 'mfa']);
      assert.equal(claimsOf(pair.access_token).auth_time, Math.floor(clock.now().getTime() / 1000));

      // An e-mail names no credential either (decision 1100): it only binds the sign-in to its account.
      const byEmail = await p.ceremony(user.passkey, { purpose: 'login', email: user.email.toUpperCase() });
      assert.deepEqual(byEmail.started.options.allowCredentials, []);
      assert.equal(byEmail.answer.statusCode, 200, byEmail.answer.body);
      // The refreshed pair keeps how the session signed in.
      const refreshed = await p.post('/api/auth/refresh', { refresh_token: pair.refresh_token });
      assert.deepEqual(claimsOf(refreshed.json<{ access_token: string }>().access_token).amr, ['webauthn', 'mfa']);
      const listed = await p.t.app.inject({
        method: 'GET',
        url: '/api/auth/passkeys',
        headers: p.bearer(pair.access_token),
      });
      assert.equal(listed.json<{ last_used_at: string }[]>()[0]!.last_used_at, clock.now().toISOString());
    });

    it('as the second factor: a password sign-in answers mfa_required with webauthn, and the passkey finishes it', async () => {
      const user = await p.passkeyUser();
      const { token, methods } = await p.mfaToken(user);
      assert.deepEqual(methods, ['webauthn']);
      const done = await p.ceremony(user.passkey, { purpose: 'mfa', mfa_token: token });
      assert.equal(done.answer.statusCode, 200, done.answer.body);
      assert.deepEqual(claimsOf(done.answer.json<{ access_token: string }>().access_token).amr, [
        'pwd',
        'mfa',
        'webauthn',
      ]);
      // The mfa_token was spent with it.
      const reuse = await p.post('/api/auth/passkeys/options', { purpose: 'mfa', mfa_token: token });
      assertDetail(reuse, 401, 'Invalid or expired mfa_token; sign in again');
      const missing = await p.post('/api/auth/passkeys/options', { purpose: 'mfa' });
      assert.equal(missing.statusCode, 422);
    });

    it('steps up: a fresh pair with a new auth_time, which what moves money accepts', async () => {
      const user = await p.passkeyUser();
      const signedIn = await p.ceremony(user.passkey, { purpose: 'login' });
      const session = p.bearer(signedIn.answer.json<{ access_token: string }>().access_token);
      const before = claimsOf(session.authorization.slice(7)).auth_time;
      clock.advance(11 * 60_000);
      const stale = await p.post('/api/auth/tokens', { name: 'bot', scopes: ['market:read'] }, session);
      assertDetail(stale, 403, 'Second factor required');
      const stepped = await p.ceremony(user.passkey, { purpose: 'step-up' }, { headers: session });
      assert.equal(stepped.answer.statusCode, 200, stepped.answer.body);
      const fresh = stepped.answer.json<{ access_token: string }>().access_token;
      assert.equal(claimsOf(fresh).auth_time, before + 11 * 60);
      const made = await p.post('/api/auth/tokens', { name: 'bot', scopes: ['market:read'] }, p.bearer(fresh));
      assert.equal(made.statusCode, 201, made.body);
    });
  });

  describe('managing', () => {
    it("renames and removes one's own passkey; another user's is 404; removing the last turns two-factor off", async () => {
      const owner = await p.passkeyUser();
      const other = await p.passkeyUser();
      const url = `/api/auth/passkeys/${owner.passkeyId}`;
      const renamed = await p.t.app.inject({
        method: 'PATCH',
        url,
        payload: { name: 'Work key' },
        headers: owner.headers,
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(renamed.json<{ name: string }>().name, 'Work key');
      for (const method of ['PATCH', 'DELETE'] as const) {
        const foreign = await p.t.app.inject({ method, url, payload: { name: 'x' }, headers: other.headers });
        assertDetail(foreign, 404, 'Passkey not found');
      }
      const nonsense = await p.t.app.inject({
        method: 'DELETE',
        url: '/api/auth/passkeys/nope',
        headers: owner.headers,
      });
      assertDetail(nonsense, 404, 'Passkey not found');
      clock.advance(11 * 60_000);
      const stale = await p.t.app.inject({ method: 'DELETE', url, headers: owner.headers });
      assertDetail(stale, 403, 'Second factor required');
      const stepped = await p.ceremony(owner.passkey, { purpose: 'step-up' }, { headers: owner.headers });
      const fresh = p.bearer(stepped.answer.json<{ access_token: string }>().access_token);
      const removed = await p.t.app.inject({ method: 'DELETE', url, headers: fresh });
      assert.equal(removed.statusCode, 204, removed.body);
      assert.equal((await me(fresh.authorization.slice(7))).twoFactorEnabled, false);
      const login = await p.post('/api/auth/login', { email: owner.email, password: owner.password });
      assert.ok('access_token' in login.json(), 'a password alone signs in again');
      assert.equal((await me(other.token)).twoFactorEnabled, true);
    });

    it('keeps two-factor on while a TOTP authenticator remains, and offers both at sign-in', async () => {
      const user = await p.passkeyUser();
      const setup = await p.post('/api/auth/2fa/setup', { password: user.password }, user.headers);
      assert.equal(setup.statusCode, 200, setup.body);
      const { secret } = setup.json<{ secret: string }>();
      assert.deepEqual((await p.mfaToken(user)).methods, ['webauthn'], 'a pending TOTP setup is no second factor yet');
      const code = referenceTotp(Buffer.from(decodeBase32(secret)), Math.floor(clock.now().getTime() / 30_000) * 30, 6);
      const enabled = await p.post('/api/auth/2fa/enable', { code }, user.headers);
      assert.equal(enabled.statusCode, 200, enabled.body);
      assert.deepEqual((await p.mfaToken(user)).methods, ['totp', 'recovery_code', 'webauthn']);
      const stepped = await p.ceremony(user.passkey, { purpose: 'step-up' }, { headers: user.headers });
      const fresh = p.bearer(stepped.answer.json<{ access_token: string }>().access_token);
      const removed = await p.t.app.inject({
        method: 'DELETE',
        url: `/api/auth/passkeys/${user.passkeyId}`,
        headers: fresh,
      });
      assert.equal(removed.statusCode, 204, removed.body);
      assert.equal((await me(fresh.authorization.slice(7))).twoFactorEnabled, true);
      assert.deepEqual((await p.mfaToken(user)).methods, ['totp', 'recovery_code']);
    });

    it('adds an authenticator app to an account with a passkey only with a fresh second factor', async () => {
      const user = await p.passkeyUser();
      // Whoever holds an access token of the account and knows the password, without its passkey.
      clock.advance(11 * 60_000);
      const stale = await p.post('/api/auth/2fa/setup', { password: user.password }, user.headers);
      assertDetail(stale, 403, 'Second factor required');
      assert.equal(stale.headers['www-authenticate'], 'Bearer error="insufficient_user_authentication"');
      assert.equal(stale.json<{ secret?: string }>().secret, undefined);
      assert.deepEqual((await p.mfaToken(user)).methods, ['webauthn'], 'no authenticator app was added');
      // The owner, with the passkey, adds one.
      const stepped = await p.ceremony(user.passkey, { purpose: 'step-up' }, { headers: user.headers });
      const fresh = p.bearer(stepped.answer.json<{ access_token: string }>().access_token);
      const setup = await p.post('/api/auth/2fa/setup', { password: user.password }, fresh);
      assert.equal(setup.statusCode, 200, setup.body);
    });

    it('is refused to API tokens', async () => {
      const user = await p.passkeyUser();
      const made = await p.post('/api/auth/tokens', { name: 'bot', scopes: ['account:read'] }, user.headers);
      assert.equal(made.statusCode, 201, made.body);
      const token = p.bearer(made.json<{ token: string }>().token);
      const listed = await p.t.app.inject({ method: 'GET', url: '/api/auth/passkeys', headers: token });
      assert.equal(listed.statusCode, 403);
      const options = await p.post('/api/auth/passkeys/options', { purpose: 'register' }, token);
      assert.equal(options.statusCode, 403);
    });
  });

  describe('REQUIRE_2FA_ROLES', () => {
    it('is satisfied by a passkey', async () => {
      const strict = await startPasskeyApp(clock, { REQUIRE_2FA_ROLES: 'user' });
      try {
        const user = await signIn(strict.t.app, strict.t.database);
        const before = await strict.t.app.inject({
          method: 'GET',
          url: '/api/exchange/credentials',
          headers: user.headers,
        });
        assertDetail(before, 403, 'Two-factor authentication required');
        await strict.register(user);
        const after_ = await strict.t.app.inject({
          method: 'GET',
          url: '/api/exchange/credentials',
          headers: user.headers,
        });
        assert.equal(after_.statusCode, 200, after_.body);
      } finally {
        await strict.t.close();
      }
    });
  });
});
