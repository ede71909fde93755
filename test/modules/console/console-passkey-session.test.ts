// The console's passkey route (decision 204): a passkey sign-in through the console ends in the same
// cookie session a password sign-in does (the access token answered, the refresh token an HttpOnly
// cookie), as does a passkey second factor; the CSRF guard holds; a step-up replaces the cookie.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import type { RequestOptions } from '../../helpers/software-authenticator.ts';
import { startPasskeyApp, type PasskeyApp } from '../auth/passkey-fixtures.ts';

const CONSOLE = { 'x-console-request': '1' };

describe("the console's passkey session", () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  let p: PasskeyApp;
  before(async () => {
    p = await startPasskeyApp(clock);
  });
  after(async () => {
    await p.t.close();
  });

  const consoleVerify = (payload: object, headers: Record<string, string> = CONSOLE) =>
    p.t.app.inject({ method: 'POST', url: '/api/console/session/passkey', payload, headers });
  /** The Set-Cookie of the console's refresh token (a sign-in also sets the device cookie, decision 730). */
  const cookieOf = (response: LightMyRequestResponse) =>
    String([response.headers['set-cookie']].flat().find((c) => String(c).startsWith('tp_console_refresh=')));

  it('signs in without a password: the access token answered, the refresh token a console cookie', async () => {
    const user = await p.passkeyUser();
    const started = await p.options<RequestOptions>({ purpose: 'login' });
    const response = p.authenticator.assert(user.passkey, started.options);
    const answer = await consoleVerify({ challenge_token: started.challenge_token, response });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(Object.keys(answer.json()).sort(), ['access_token', 'expires_in', 'token_type']);
    assert.match(cookieOf(answer), /^tp_console_refresh=[^;]+; .*HttpOnly/);
    assert.match(cookieOf(answer), /Path=\/api\/console\/session/);
    assert.ok(
      [answer.headers['set-cookie']].flat().some((c) => String(c).startsWith('tp_device=')),
      'a completed sign-in sets the device cookie',
    );
    const refreshed = await p.t.app.inject({
      method: 'POST',
      url: '/api/console/session/refresh',
      headers: { ...CONSOLE, cookie: cookieOf(answer).split(';')[0]! },
    });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
  });

  it('finishes a password sign-in with a passkey, and steps up replacing the cookie', async () => {
    const user = await p.passkeyUser();
    const login = await p.t.app.inject({
      method: 'POST',
      url: '/api/console/session/login',
      headers: CONSOLE,
      payload: { email: user.email, password: user.password },
    });
    const { mfa_token, methods } = login.json<{ mfa_token: string; methods: string[] }>();
    assert.deepEqual(methods, ['webauthn']);
    const mfa = await p.options<RequestOptions>({ purpose: 'mfa', mfa_token });
    const signedIn = await consoleVerify({
      challenge_token: mfa.challenge_token,
      response: p.authenticator.assert(user.passkey, mfa.options),
    });
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const bearer = p.bearer(signedIn.json<{ access_token: string }>().access_token);
    const stepUp = await p.options<RequestOptions>({ purpose: 'step-up' }, bearer);
    const stepped = await consoleVerify(
      { challenge_token: stepUp.challenge_token, response: p.authenticator.assert(user.passkey, stepUp.options) },
      { ...CONSOLE, ...bearer },
    );
    assert.equal(stepped.statusCode, 200, stepped.body);
    assert.notEqual(cookieOf(stepped), cookieOf(signedIn));
  });

  it('refuses without the console header (422), from another origin (403), and a bad answer (401)', async () => {
    const user = await p.passkeyUser();
    const started = await p.options<RequestOptions>({ purpose: 'login' });
    const body = {
      challenge_token: started.challenge_token,
      response: p.authenticator.assert(user.passkey, started.options),
    };
    assert.equal((await consoleVerify(body, {})).statusCode, 422);
    const foreign = await consoleVerify(body, { ...CONSOLE, origin: 'https://evil.example', host: 'localhost' });
    assertDetail(foreign, 403, 'Cross-site request refused');
    const wrong = await consoleVerify({ ...body, challenge_token: 'nope' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
  });
});
