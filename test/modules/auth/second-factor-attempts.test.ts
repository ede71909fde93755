// A second factor cannot be brute-forced (issue 37, decision 197): wrong codes count per account in a
// counter no password resets, whatever the address and wherever a code is asked (sign-in, step-up,
// enable, disable, recovery codes); the owner is mailed once per lockout; a day holds at most 50.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { createSecondFactorAttempts, SECOND_FACTOR_LIMITS } from '../../../src/modules/auth/second-factor-attempts.ts';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { AppError } from '../../../src/platform/http/errors.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { newClientAddress, signIn } from '../../helpers/test-app.ts';
import { startTwoFactorApp, type TwoFactorApp } from './two-factor-fixtures.ts';

const LOCKED = 'Too many wrong two-factor codes for this account; try again later';
const LOCKOUT_MAIL = 'Two-factor codes for your account are paused';

describe('second-factor attempts', () => {
  const clock = fixedClock('2026-03-02T10:00:05Z');
  let f: TwoFactorApp;
  before(async () => {
    f = await startTwoFactorApp(clock);
  });
  after(async () => {
    await f.t.close();
  });

  const wrongCode = (secret: string) => (f.codeAt(secret) === '000000' ? '111111' : '000000');
  const lockoutMails = async (email: string) =>
    (
      await f.t.database.rows(
        sql`SELECT 1 FROM outbox WHERE kind = 'mail.send' AND payload->>'to' = ${email}
          AND payload->>'subject' = ${LOCKOUT_MAIL}`,
      )
    ).length;

  it('a new sign-in from a new address buys no more code guesses; the owner is mailed once', async () => {
    const user = await f.enrolled();
    for (let i = 0; i < SECOND_FACTOR_LIMITS.perWindow; i++) {
      const address = newClientAddress();
      const token = await f.challenge(user, address);
      assertDetail(
        await f.post('/api/auth/2fa/verify', { mfa_token: token, code: wrongCode(user.secret) }, {}, address),
        401,
      );
    }
    const address = newClientAddress();
    const token = await f.challenge(user, address);
    const refused = await f.post(
      '/api/auth/2fa/verify',
      { mfa_token: token, code: f.codeAt(user.secret) },
      {},
      address,
    );
    assertDetail(refused, 429, LOCKED);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assertDetail(
      await f.post('/api/auth/2fa/verify', { mfa_token: token, recovery_code: user.recoveryCodes[0] }, {}, address),
      429,
      LOCKED,
    );
    assert.equal(await lockoutMails(user.email), 1, 'one mail for the lockout, not one per guess');
  });

  it('step-up, disable and recovery codes count in the same counter as the sign-in', async () => {
    const user = await f.enrolled();
    const wrong = wrongCode(user.secret);
    for (let i = 0; i < 2; i++)
      assertDetail(await f.post('/api/auth/2fa/step-up', { code: wrong }, user.headers, newClientAddress()), 401);
    const token = await f.challenge(user, newClientAddress());
    assertDetail(await f.post('/api/auth/2fa/verify', { mfa_token: token, recovery_code: 'aaaa-bbbb-cccc' }), 401);
    for (let i = 0; i < 2; i++) {
      const disable = await f.post('/api/auth/2fa/disable', { password: user.password, code: wrong }, user.headers);
      assert.equal(disable.statusCode, 422, disable.body);
    }
    const stepUp = await f.post(
      '/api/auth/2fa/step-up',
      { code: f.codeAt(user.secret) },
      user.headers,
      newClientAddress(),
    );
    assertDetail(stepUp, 429, LOCKED);
    assert.equal(await lockoutMails(user.email), 1);
  });

  it('wrong codes at enabling count too; enabling with the right code forgives none of them', async () => {
    const user = await signIn(f.t.app, f.t.database);
    const setup = await f.post('/api/auth/2fa/setup', { password: user.password }, user.headers);
    const { secret } = setup.json<{ secret: string }>();
    for (let i = 0; i < SECOND_FACTOR_LIMITS.perWindow - 1; i++) {
      const wrong = await f.post('/api/auth/2fa/enable', { code: wrongCode(secret) }, user.headers);
      assert.equal(wrong.statusCode, 422, wrong.body);
    }
    assert.equal((await f.post('/api/auth/2fa/enable', { code: f.codeAt(secret) }, user.headers)).statusCode, 200);
    f.nextStep();
    const token = await f.challenge(user, newClientAddress());
    assertDetail(await f.post('/api/auth/2fa/verify', { mfa_token: token, code: wrongCode(secret) }), 401);
    assertDetail(await f.post('/api/auth/2fa/verify', { mfa_token: token, code: f.codeAt(secret) }), 429, LOCKED);
  });

  it('a right password no longer releases the address counter before the second factor', async () => {
    const user = await f.enrolled();
    const address = newClientAddress();
    for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient - 1; i++)
      assert.equal((await f.login({ email: user.email, password: `guess-${i}` }, address)).statusCode, 401);
    const token = await f.challenge(user, address);
    assertDetail(await f.login(user, address), 429, 'Too many login attempts; try again later');
    const verified = await f.post(
      '/api/auth/2fa/verify',
      { mfa_token: token, code: f.codeAt(user.secret) },
      {},
      address,
    );
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal((await f.login(user, address)).statusCode, 200, 'the second factor proven, the address is forgiven');
  });
});

describe('second-factor attempts over a day', () => {
  const { perWindow, perDay, dayMs } = SECOND_FACTOR_LIMITS;
  let f: TwoFactorApp;
  // The attempts and their cache read this clock, which the test moves: the process's own is left alone.
  const clock = fixedClock(new Date());
  before(async () => {
    f = await startTwoFactorApp(clock);
  });
  after(async () => {
    await f.t.close();
  });

  it(`no 24 hours hold more than ${perDay} guesses, and a right code reopens nothing`, async () => {
    const mails: string[] = [];
    const cache = createMemoryCache(undefined, undefined, () => clock.now().getTime());
    const attempts = createSecondFactorAttempts({
      cache,
      counters: cache,
      db: f.t.database.db,
      messages: {
        mail: async (_executor, mail) => {
          mails.push(mail.subject);
          return { queued: true };
        },
      },
      clock,
    });
    const user = { id: crypto.randomUUID(), email: 'guessed@example.com' };
    const counted: number[] = [];
    // Two days of a guess every 90 seconds (more than the window allows), and the owner's right code
    // every hour: each guess that is let through is a wrong code.
    for (let t = 0; t < 2 * dayMs; t += 90_000) {
      const owner = t % (60 * 60 * 1000) === 0;
      try {
        const attempt = await attempts.reserve(user);
        if (owner) await attempt.succeeded();
        else {
          counted.push(clock.now().getTime());
          await attempt.failed();
        }
      } catch (error) {
        assert.ok(error instanceof AppError && error.code === 'rate_limited', String(error));
        assert.ok(Number(error.headers['retry-after']) > 0);
      }
      clock.advance(90_000);
    }
    for (let i = 0; i < counted.length; i++) {
      const within = counted.filter((at) => at >= counted[i]! && at < counted[i]! + dayMs).length;
      assert.ok(within <= perDay, `${within} guesses in the 24 hours from guess ${i}`);
    }
    assert.ok(counted.length >= perDay, 'guessing was bounded, not stopped');
    assert.ok(counted.length <= 2 * perDay, `${counted.length} guesses in two days`);
    assert.ok(mails.length >= 1 && mails.length <= counted.length / perWindow, `${mails.length} mails`);
  });
});
