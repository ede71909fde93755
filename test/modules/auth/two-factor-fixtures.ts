// Set-up shared by the two-factor tests: the app on a fixed clock, codes computed by the reference
// implementation at that clock, and a user enrolled through the API.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { fixedClock } from '../../../src/platform/clock.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

type FixedClock = ReturnType<typeof fixedClock>;

export type TwoFactorApp = Awaited<ReturnType<typeof startTwoFactorApp>>;

export async function startTwoFactorApp(clock: FixedClock) {
  return twoFactorHelpers(await buildTestApp({ clock }), clock);
}

/**
 * The app of the enclosing describe: built in its before hook, closed in its after hook. `t` stays empty
 * until that hook fills it in, so the describe may take `t` and the helpers at once, and its tests use them.
 */
export function useTwoFactorApp(clock: FixedClock) {
  const t = {} as TestApp;
  before(async () => {
    Object.assign(t, await buildTestApp({ clock }));
  });
  after(() => t.close());
  return twoFactorHelpers(t, clock);
}

function twoFactorHelpers(t: TestApp, clock: FixedClock) {
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress });
  /** A request with the bearer token. */
  const call = (method: string, url: string, token: string, payload?: unknown) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: payload as object,
    });
  const me = (token: string) => call('GET', '/api/auth/me', token);
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

  return { t, post, me, call, codeAt, nextStep, enrolled, login, challenge };
}
