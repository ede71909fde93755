// Set-up shared by the two-factor tests: the app on a fixed clock, codes computed by the reference
// implementation at that clock, and a user enrolled through the API.
import assert from 'node:assert/strict';
import type { fixedClock } from '../../../src/platform/clock.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

export type TwoFactorApp = Awaited<ReturnType<typeof startTwoFactorApp>>;

export async function startTwoFactorApp(clock: ReturnType<typeof fixedClock>) {
  const t: TestApp = await buildTestApp({ clock });

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

  return { t, post, me, codeAt, nextStep, enrolled, login, challenge };
}
