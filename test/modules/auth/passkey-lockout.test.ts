// A passkey sign-in is a completed sign-in as far as the login throttle goes (decisions 196, 730): it
// gives the password's attempt back, makes its address known to the account and sets the device cookie,
// so an owner whose second factor (or whole sign-in) is a passkey is not locked out by guesses spread
// over many addresses, nor by their own sign-ins. A file of its own: each failed login hashes a password.
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { deviceCookie, spreadAttack } from './lockout-fixtures.ts';
import { startPasskeyApp, type PasskeyApp } from './passkey-fixtures.ts';

describe('auth: an owner who signs in with a passkey is not locked out', () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  let p: PasskeyApp;
  before(async () => {
    p = await startPasskeyApp(clock);
  });
  after(async () => {
    await p.t.close();
  });

  const login = (user: { email: string; password: string }, remoteAddress: string, cookie?: string) =>
    p.post('/api/auth/login', { email: user.email, password: user.password }, cookie ? { cookie } : {}, remoteAddress);
  /** A password sign-in from `address` finished with the passkey; answers the completed sign-in. */
  async function passwordAndPasskey(owner: Awaited<ReturnType<PasskeyApp['passkeyUser']>>, address: string) {
    const started = await login(owner, address);
    assert.equal(started.statusCode, 200, started.body);
    const { mfa_token } = started.json<{ mfa_token: string }>();
    const done = await p.ceremony(owner.passkey, { purpose: 'mfa', mfa_token }, { remoteAddress: address });
    assert.equal(done.answer.statusCode, 200, done.answer.body);
    return done.answer;
  }

  it('a password sign-in finished with the passkey gives its attempt back: the owner signs in more than 20 times from one address', async () => {
    const owner = await p.passkeyUser();
    for (let i = 0; i <= LOGIN_LIMITS.perClient; i++) await passwordAndPasskey(owner, '192.0.2.60');
  });

  it(
    'after 21 addresses × 5 wrong passwords, the owner signs in from the address and with the device ' +
      'cookie of an earlier passkey sign-in; unknown clients wait',
    async () => {
      const owner = await p.passkeyUser();
      const cookie = deviceCookie(await passwordAndPasskey(owner, '192.0.2.70'));
      const passwordless = await p.ceremony(owner.passkey, { purpose: 'login' }, { remoteAddress: '192.0.2.71' });
      assert.equal(passwordless.answer.statusCode, 200, passwordless.answer.body);
      deviceCookie(passwordless.answer);

      await spreadAttack(login, owner, 0xb1);
      assert.equal((await login(owner, '198.51.100.70')).statusCode, 429, 'a client never seen before waits');

      const home = await login(owner, '192.0.2.70');
      assert.equal(home.statusCode, 200, `from the address of an earlier passkey sign-in: ${home.body}`);
      const travelling = await login(owner, '203.0.113.70', cookie);
      assert.equal(travelling.statusCode, 200, `with the device cookie, from anywhere: ${travelling.body}`);
      const again = await p.ceremony(owner.passkey, { purpose: 'login' }, { remoteAddress: '192.0.2.71' });
      assert.equal(
        again.answer.statusCode,
        200,
        `a passwordless sign-in from where one was made: ${again.answer.body}`,
      );
    },
  );
});
