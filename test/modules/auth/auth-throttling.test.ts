// How logins are throttled: per address, per account, behind a reverse proxy, and across instances
// sharing Redis. A file of its own: each failed login hashes a password, and a hundred of them take a
// while on a busy machine.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { sql } from 'drizzle-orm';
import { createPasswordHasher, PRODUCTION_PASSWORD_COST } from '../../../src/platform/crypto/passwords.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp } from '../../helpers/test-app.ts';
import { withoutRedis } from '../../helpers/services.ts';

const NO_REDIS = withoutRedis('sharing the login counter needs Redis (REDIS_URL=redis://127.0.0.1:6379)');

describe('auth: login throttling', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  const login = (email: string, password: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });

  describe('login throttling', () => {
    const PAIR = LOGIN_LIMITS.perAccountAndClient;
    it(
      `per address: after ${LOGIN_LIMITS.perClient} failures from one address, even a ` +
        'correct login from it is refused',
      async () => {
        const victim = await signIn(t.app, t.database);
        for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
          assert.equal((await login(`nobody-${i}@example.com`, 'wrong-password', '10.9.0.1')).statusCode, 401);
        }
        const blocked = await login(victim.email, victim.password, '10.9.0.1');
        assert.equal(blocked.statusCode, 429);
        assert.deepEqual(blocked.json(), { detail: 'Too many login attempts; try again later' });
        const retryAfter = Number(blocked.headers['retry-after']);
        assert.ok(retryAfter > 0 && retryAfter <= LOGIN_LIMITS.windowMs / 1000, String(retryAfter));
        assert.equal(
          (await login(victim.email, victim.password, '10.9.0.2')).statusCode,
          200,
          'other addresses are not affected',
        );
      },
    );

    it('failures from elsewhere do not lock the owner out', async () => {
      const owner = await signIn(t.app, t.database);
      for (let i = 0; i < PAIR; i++) assert.equal((await login(owner.email, `guess-${i}`, '10.9.3.1')).statusCode, 401);
      assert.equal(
        (await login(owner.email, owner.password, '10.9.3.1')).statusCode,
        429,
        'the guessing address is refused, even the right password',
      );
      assert.equal(
        (await login(owner.email, owner.password, '10.9.3.2')).statusCode,
        200,
        'the owner, elsewhere, signs in',
      );
    });

    it('no flood of anonymous requests flushes a lockout (11,000 made-up stream tickets)', async () => {
      const victim = await signIn(t.app, t.database);
      for (let i = 0; i < PAIR; i++)
        assert.equal((await login(victim.email, `guess-${i}`, '10.9.7.1')).statusCode, 401);
      const madeUpTicket = (i: number) =>
        t.app.inject({
          method: 'GET',
          url: `/api/stream?ticket=${randomBytes(32).toString('base64url')}`,
          remoteAddress: `10.10.${i >> 8}.${i & 255}`,
        });
      // A hundred at a time: what could flush the lockout is how many entries the flood writes, not
      // their order, and one at a time a busy machine spends minutes waiting on round trips to Redis.
      for (let first = 0; first < 11_000; first += 100) {
        const answers = await Promise.all(Array.from({ length: 100 }, (_, j) => madeUpTicket(first + j)));
        const refused = answers.filter((response) => response.statusCode === 401).length;
        assert.equal(refused, answers.length, answers.find((response) => response.statusCode !== 401)?.body);
      }
      assert.equal(
        (await login(victim.email, victim.password, '10.9.7.1')).statusCode,
        429,
        'the guessing address is still refused',
      );
    });

    it('parallel guesses from one address cannot slip past the per-account limit', async () => {
      const victim = await signIn(t.app, t.database);
      const statuses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => login(victim.email, `guess-${i}`, '10.9.1.1')),
      ).then((rs) => rs.map((r) => r.statusCode));
      assert.equal(statuses.filter((s) => s === 401).length, PAIR);
      assert.equal(statuses.filter((s) => s === 429).length, 12 - PAIR);
    });

    it('an IPv6 client is counted per /64, not per address', async () => {
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        assert.equal(
          (await login(`v6-${i}@example.com`, 'wrong-password', `2001:db8:5:6::${(i + 1).toString(16)}`)).statusCode,
          401,
        );
      }
      const victim = await signIn(t.app, t.database);
      assert.equal(
        (await login(victim.email, victim.password, '2001:db8:5:6:ffff::1')).statusCode,
        429,
        'another address of the same /64',
      );
      assert.equal(
        (await login(victim.email, victim.password, '2001:db8:5:7::1')).statusCode,
        200,
        'the next /64 is another client',
      );
    });

    it(
      `an account takes ${LOGIN_LIMITS.perAccount} failures from everywhere; attempts refused for ` +
        'their address count for nothing',
      async () => {
        const victim = await signIn(t.app, t.database);
        // An address over its own limit: its attempts at the victim must not count towards the account's.
        for (let i = 0; i < LOGIN_LIMITS.perClient; i++)
          assert.equal((await login(`filler-${i}@example.com`, 'wrong', '10.9.4.250')).statusCode, 401);
        for (let i = 0; i < LOGIN_LIMITS.perAccount; i++)
          assert.equal((await login(victim.email, 'wrong', '10.9.4.250')).statusCode, 429);
        const addresses = LOGIN_LIMITS.perAccount / PAIR;
        for (let a = 0; a < addresses; a++) {
          const failures = await Promise.all(
            Array.from({ length: PAIR }, () => login(victim.email, 'wrong', `10.9.4.${a + 1}`)),
          );
          assert.deepEqual(
            failures.map((r) => r.statusCode),
            Array(PAIR).fill(401),
            `address ${a + 1}`,
          );
        }
        const locked = await login(victim.email, victim.password, '10.9.5.1');
        assert.equal(
          locked.statusCode,
          429,
          'past the account-wide limit every address is refused until the window ends',
        );
      },
    );

    it(
      'successful logins do not use up the per-address ' + "allowance, and reset the account's count from that address",
      async () => {
        const user = await signIn(t.app, t.database);
        for (let i = 0; i < LOGIN_LIMITS.perClient + 5; i++) {
          assert.equal((await login(user.email, user.password, '10.9.2.1')).statusCode, 200, `login ${i + 1}`);
        }
        for (let round = 0; round < 2; round++) {
          for (let i = 0; i < PAIR - 1; i++)
            assert.equal((await login(user.email, 'wrong', '10.9.2.2')).statusCode, 401);
          assert.equal((await login(user.email, user.password, '10.9.2.2')).statusCode, 200);
        }
      },
    );
  });

  describe('behind a reverse proxy', () => {
    let proxied: TestApp;
    before(async () => {
      proxied = await buildTestApp({ keepData: true, env: { TRUST_PROXY: '127.0.0.1' } });
    });
    after(async () => {
      await proxied.close();
    });
    const viaProxy = (app: TestApp, email: string, password: string, client: string) =>
      app.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password },
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': client },
      });

    it('with TRUST_PROXY, each forwarded client is limited on its own', async () => {
      const owner = await signIn(proxied.app, proxied.database);
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        assert.equal((await viaProxy(proxied, `p-${i}@example.com`, 'wrong', '198.51.100.7')).statusCode, 401);
      }
      assert.equal((await viaProxy(proxied, owner.email, owner.password, '198.51.100.7')).statusCode, 429);
      assert.equal(
        (await viaProxy(proxied, owner.email, owner.password, '198.51.100.8')).statusCode,
        200,
        'another client behind the same proxy',
      );
    });

    it('without TRUST_PROXY, a forwarded address is not believed', async () => {
      const owner = await signIn(t.app, t.database);
      for (let i = 0; i < LOGIN_LIMITS.perClient; i++) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: `spoof-${i}@example.com`, password: 'wrong' },
          remoteAddress: '10.9.6.1',
          headers: { 'x-forwarded-for': `198.51.100.${i + 10}` },
        });
        assert.equal(response.statusCode, 401);
      }
      const spoofed = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: owner.email, password: owner.password },
        remoteAddress: '10.9.6.1',
        headers: { 'x-forwarded-for': '198.51.100.99' },
      });
      assert.equal(spoofed.statusCode, 429, 'the socket address is the client, whatever the header says');
    });
  });
});

describe('auth: the sign-in queue', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ signInWaiting: 1 });
  });
  after(async () => {
    await t.close();
  });

  it('a sign-in that would wait past the queue answers 503 with Retry-After, unchecked; the owner then signs in', async () => {
    const user = await signIn(t.app, t.database);
    // The account's password at the production cost, so the real checks take long enough to queue.
    const slow = await createPasswordHasher().hash(user.password);
    await t.database.db.execute(sql`UPDATE users SET password_hash = ${slow} WHERE id = ${user.id}`);
    const login = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password },
        remoteAddress: newClientAddress(),
      });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => login(`guess-${i}`)));
    const statuses = answers.map((answer) => answer.statusCode);
    const refused = answers.filter((answer) => answer.statusCode === 503);
    assert.ok(refused.length >= 30 - 4 - 1 - 10, `statuses ${statuses.join(' ')}`);
    assert.ok(
      statuses.every((status) => status === 401 || status === 503),
      statuses.join(' '),
    );
    for (const answer of refused) {
      assert.equal(answer.headers['retry-after'], '1');
      assert.deepEqual(answer.json(), { detail: 'Too many sign-ins are being checked; try again shortly' });
    }
    assert.equal((await login(user.password)).statusCode, 200, 'the queue drained, the owner signs in');
  });
});

describe('auth: the sign-up queue', () => {
  let t: TestApp;
  before(async () => {
    // Sign-ups hashed at the production cost, so they take long enough to queue.
    t = await buildTestApp({
      signUpWaiting: 1,
      passwordCost: PRODUCTION_PASSWORD_COST,
      env: { SIGNUP_LIMIT_PER_HOUR: '30' },
    });
  });
  after(async () => {
    await t.close();
  });

  it('a sign-up that would wait past the queue answers 503 with Retry-After, unhashed and not counted against its address', async () => {
    const address = newClientAddress();
    const register = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email, password: 'a long enough password' },
        remoteAddress: address,
      });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => register(`flood-${i}@example.com`)));
    const statuses = answers.map((answer) => answer.statusCode);
    assert.ok(
      statuses.every((status) => status === 201 || status === 503),
      statuses.join(' '),
    );
    const refused = answers.filter((answer) => answer.statusCode === 503);
    assert.ok(refused.length >= 30 - 2 - 1 - 10, `statuses ${statuses.join(' ')}`);
    for (const answer of refused) {
      assert.equal(answer.headers['retry-after'], '1');
      assert.deepEqual(answer.json(), { detail: 'Too many sign-ups are being processed; try again shortly' });
    }
    const [created] = await t.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM users WHERE email LIKE 'flood-%'`,
    );
    assert.equal(created!.n, 30 - refused.length, 'a refused sign-up made no account');
    // The address used 30 of its 30 sign-ups an hour; the refused ones were given back, so it signs up again.
    const after = await register('after-the-flood@example.com');
    assert.equal(after.statusCode, 201, after.body);
  });
});

describe('two instances on one Redis', { skip: NO_REDIS }, () => {
  it('share the login counter', async () => {
    const prefix = `test:${randomUUID()}:`;
    const a = await buildTestApp({ cachePrefix: prefix });
    const b = await buildTestApp({ cachePrefix: prefix, keepData: true });
    try {
      const user = await signIn(a.app, a.database);
      const attempt = (app: TestApp, password: string) =>
        app.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: user.email, password },
          remoteAddress: '10.8.0.1',
        });
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++)
        assert.equal((await attempt(i % 2 ? a : b, 'wrong')).statusCode, 401);
      assert.equal((await attempt(a, user.password)).statusCode, 429);
      assert.equal((await attempt(b, user.password)).statusCode, 429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
