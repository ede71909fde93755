// No one can lock an owner out (issue 37, decision 196): guessing from many addresses trips the
// account-wide limit, which then refuses unknown clients only; a client that signed in to the account
// before (its device cookie, or an address of an earlier sign-in) still gets in, and a successful
// sign-in lifts nothing anywhere else. A file of its own: each failed login hashes a password.
import assert from 'node:assert/strict';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { deviceCookie, spreadAttack } from './lockout-fixtures.ts';

const PAIR = LOGIN_LIMITS.perAccountAndClient;

describe('auth: the owner is never locked out', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  const login = (user: { email: string; password: string }, remoteAddress: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress,
      headers: cookie ? { cookie } : {},
    });
  const consoleLogin = (user: TestUser, remoteAddress: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/console/session/login',
      payload: { email: user.email, password: user.password },
      remoteAddress,
      headers: { 'x-console-request': '1', ...(cookie ? { cookie } : {}) },
    });
  it(
    'after 21 addresses × 5 wrong passwords, the owner signs in with the device cookie and from an ' +
      'address of an earlier sign-in; unknown clients wait',
    async () => {
      const owner = await signIn(t.app, t.database);
      const atHome = await login(owner, '192.0.2.10');
      assert.equal(atHome.statusCode, 200, atHome.body);
      const cookie = deviceCookie(atHome);

      await spreadAttack(login, owner, 0xa1);
      const unknown = await login(owner, '198.51.100.20');
      assert.equal(unknown.statusCode, 429, 'a client never seen before waits for the window');
      assert.ok(Number(unknown.headers['retry-after']) > 0);

      const travelling = await login(owner, '203.0.113.7', cookie);
      assert.equal(travelling.statusCode, 200, `with the device cookie, from anywhere: ${travelling.body}`);
      const home = await login(owner, '192.0.2.10');
      assert.equal(home.statusCode, 200, `from the address of an earlier sign-in, without a cookie: ${home.body}`);
      const viaConsole = await consoleLogin(owner, '203.0.113.8', deviceCookie(travelling));
      assert.equal(viaConsole.statusCode, 200, `the console's sign-in, with the device cookie: ${viaConsole.body}`);
      deviceCookie(viaConsole);
    },
  );

  it('a successful sign-in lifts no lockout of another address, nor the account-wide one elsewhere', async () => {
    const owner = await signIn(t.app, t.database);
    const cookie = deviceCookie(await login(owner, '192.0.2.30'));
    for (let i = 0; i < PAIR; i++)
      assert.equal((await login({ email: owner.email, password: `guess-${i}` }, '198.51.100.31')).statusCode, 401);
    assert.equal((await login(owner, '198.51.100.31')).statusCode, 429, 'the guessing address is locked');
    assert.equal((await login(owner, '192.0.2.30')).statusCode, 200, 'the owner signs in at home');
    assert.equal((await login(owner, '203.0.113.30', cookie)).statusCode, 200, 'and with the device cookie');
    assert.equal(
      (await login(owner, '198.51.100.31')).statusCode,
      429,
      "the owner's sign-ins did not unlock the guessing address",
    );

    await spreadAttack(login, owner, 0xa2);
    assert.equal((await login(owner, '192.0.2.30')).statusCode, 200);
    assert.equal(
      (await login(owner, '2001:db8:a2:99::1')).statusCode,
      429,
      "the owner's sign-in did not lift the account-wide limit for unknown clients",
    );
  });

  it('a device cookie of another account, or altered, gives no privilege', async () => {
    const owner = await signIn(t.app, t.database);
    const other = await signIn(t.app, t.database);
    const othersCookie = deviceCookie(await login(other, '192.0.2.40'));
    const ownCookie = deviceCookie(await login(owner, '192.0.2.41'));
    await spreadAttack(login, owner, 0xa3);
    assert.equal((await login(owner, '203.0.113.40', othersCookie)).statusCode, 429, "another account's cookie");
    const [name, value] = ownCookie.split('=') as [string, string];
    const altered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.equal((await login(owner, '203.0.113.41', altered)).statusCode, 429, 'an altered cookie');
    assert.equal((await login(owner, '203.0.113.42', 'tp_device=forged')).statusCode, 429, 'a made-up cookie');
    assert.equal((await login(owner, '203.0.113.43', ownCookie)).statusCode, 200, 'the real one');
  });

  it('a device cookie that sees too many failures is locked by its own counter', async () => {
    const owner = await signIn(t.app, t.database);
    const cookie = deviceCookie(await login(owner, '192.0.2.50'));
    // The cookie travels (a stolen one would): its failures count on it, whatever the address.
    for (let i = 0; i < LOGIN_LIMITS.perDevice; i++) {
      const wrong = await login({ email: owner.email, password: `guess-${i}` }, `203.0.113.${60 + i}`, cookie);
      assert.equal(wrong.statusCode, 401);
    }
    assert.equal((await login(owner, '203.0.113.70', cookie)).statusCode, 429, 'the cookie is locked');
    const fresh = await login(owner, '192.0.2.50');
    assert.equal(fresh.statusCode, 200, 'the owner, from home without it, is not');
  });

  it('device cookies issued before a password change are no cookies after it (decision 881)', async () => {
    const owner = await signIn(t.app, t.database);
    // Whoever knew the password kept the cookie of every sign-in: each used to buy its own 5 guesses per
    // window, apart from the address's and the account's, so a hoard of them guessed without bound.
    const hoard: string[] = [];
    for (let i = 0; i < 2; i++) hoard.push(deviceCookie(await login(owner, `192.0.2.${90 + i}`)));
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      payload: { current_password: owner.password, new_password: 'the owner changed it 1' },
      headers: owner.headers,
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const guess = (i: number) => ({ email: owner.email, password: `variant-${i}` });
    const statuses: number[] = [];
    for (let i = 0; i <= PAIR; i++)
      statuses.push((await login(guess(i), '203.0.113.90', hoard[Math.floor(i / PAIR)])).statusCode);
    // Counted by their address, as a client's without a cookie: the pair's limit holds the sixth.
    assert.deepEqual(statuses, [...Array(PAIR).fill(401), 429]);
    // The owner's next sign-in sets a cookie bound to the new password, which counts on its own again.
    const renewed = deviceCookie(await login({ email: owner.email, password: 'the owner changed it 1' }, '192.0.2.92'));
    assert.equal((await login(guess(9), '203.0.113.90', renewed)).statusCode, 401, 'the new cookie is a device');
  });

  it('sets the device cookie HttpOnly and SameSite=Strict, for the sign-in routes, Secure over https', async () => {
    const owner = await signIn(t.app, t.database);
    const plain = await login(owner, '192.0.2.80');
    const setCookie = [plain.headers['set-cookie']].flat().find((c) => String(c).startsWith('tp_device='));
    const attributes = String(setCookie).split('; ').slice(1);
    assert.deepEqual(attributes.sort(), ['HttpOnly', 'Max-Age=15552000', 'Path=/api', 'SameSite=Strict']);
    assert.doesNotMatch(plain.body, /tp_device|d\d\./, 'never in the body');

    const proxied = await buildTestApp({ keepData: true, env: { TRUST_PROXY: '127.0.0.1' } });
    try {
      const secure = await proxied.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: owner.email, password: owner.password },
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '192.0.2.81', 'x-forwarded-proto': 'https' },
      });
      assert.equal(secure.statusCode, 200, secure.body);
      assert.match(String([secure.headers['set-cookie']].flat()), /tp_device=[^;]+;.*; Secure/);
    } finally {
      await proxied.close();
    }
  });
});
