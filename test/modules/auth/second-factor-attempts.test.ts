// A second factor cannot be brute-forced (issue 37, decision 197): wrong codes count per account in a
// counter no password resets, whatever the address (TOTP and recovery codes at sign-in); the owner is
// mailed once per lockout; a day holds at most 50. Codes given in a signed-in session (step-up:
// decision 733; enable and disable: decision 1150) are held per session instead: a taken session's
// guesses hold that session, not the owner's sign-in or other sessions, and the account's sessions
// share a day of 30.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import {
  createSecondFactorAttempts,
  SECOND_FACTOR_LIMITS,
  STEP_UP_LIMITS,
} from '../../../src/modules/auth/second-factor-attempts.ts';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { AppError } from '../../../src/platform/http/errors.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { newClientAddress, signIn } from '../../helpers/test-app.ts';
import { deviceCookie } from './lockout-fixtures.ts';
import { startTwoFactorApp, type TwoFactorApp } from './two-factor-fixtures.ts';

const LOCKED = 'Too many wrong two-factor codes for this account; try again later';
const SESSION_LOCKED = 'Too many wrong two-factor codes in this session; try again later';
const LOCKOUT_MAIL = 'Two-factor codes for your account are paused';
const STEP_UP_MAIL = 'Two-factor codes for a signed-in session are paused';

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

  it("someone who knows the password locks the account's codes, not the owner's device (decision 1052)", async () => {
    const user = await f.enrolled();
    // The owner's browser completed a sign-in before: it holds the account's device cookie.
    const home = newClientAddress();
    const first = await f.post(
      '/api/auth/2fa/verify',
      { mfa_token: await f.challenge(user, home), code: f.codeAt(user.secret) },
      {},
      home,
    );
    assert.equal(first.statusCode, 200, first.body);
    const cookie = deviceCookie(first);
    f.nextStep();
    // Whoever else has the password guesses codes from anywhere, until the account's codes lock.
    for (let i = 0; i < SECOND_FACTOR_LIMITS.perWindow; i++) {
      const address = newClientAddress();
      const token = await f.challenge(user, address);
      assertDetail(
        await f.post('/api/auth/2fa/verify', { mfa_token: token, code: wrongCode(user.secret) }, {}, address),
        401,
      );
    }
    const elsewhere = newClientAddress();
    const refused = await f.post(
      '/api/auth/2fa/verify',
      { mfa_token: await f.challenge(user, elsewhere), code: f.codeAt(user.secret) },
      {},
      elsewhere,
    );
    assertDetail(refused, 429, LOCKED);
    // The owner's browser, from another address, still finishes its sign-in with the right code.
    const travelling = newClientAddress();
    const login = await f.post(
      '/api/auth/login',
      { email: user.email, password: user.password },
      { cookie },
      travelling,
    );
    assert.equal(login.statusCode, 200, login.body);
    const token = login.json<{ mfa_token: string }>().mfa_token;
    const owner = await f.post(
      '/api/auth/2fa/verify',
      { mfa_token: token, code: f.codeAt(user.secret) },
      { cookie },
      travelling,
    );
    assert.equal(owner.statusCode, 200, `the owner's device is not held by the account's lock: ${owner.body}`);
    // A cookie of another account, or none, is no way around the lock.
    const other = await f.post(
      '/api/auth/2fa/verify',
      { mfa_token: await f.challenge(user, elsewhere), code: f.codeAt(user.secret) },
      { cookie: 'tp_device=d2.AAAAAAAAAAAAAAAAAAAAAA.abc.AAAA' },
      elsewhere,
    );
    assertDetail(other, 429, LOCKED);
  });

  it("recovery codes at sign-in count in the sign-in's counter; a locked sign-in holds not the owner's session", async () => {
    const user = await f.enrolled();
    for (let i = 0; i < SECOND_FACTOR_LIMITS.perWindow; i++) {
      const token = await f.challenge(user, newClientAddress());
      assertDetail(await f.post('/api/auth/2fa/verify', { mfa_token: token, recovery_code: 'aaaa-bbbb-cccc' }), 401);
    }
    const token = await f.challenge(user, newClientAddress());
    assertDetail(await f.post('/api/auth/2fa/verify', { mfa_token: token, code: f.codeAt(user.secret) }), 429, LOCKED);
    assert.equal(await lockoutMails(user.email), 1);
    // Whoever holds the password locked the sign-in's codes; the owner, signed in, still turns two-factor
    // off (to enrol a new phone, say): the session's codes are counted apart (decision 1150).
    const disabled = await f.post(
      '/api/auth/2fa/disable',
      { password: user.password, code: f.codeAt(user.secret) },
      user.headers,
    );
    assert.equal(disabled.statusCode, 200, disabled.body);
  });

  it("disable's wrong codes hold that session, not the owner's sign-in (decision 1150)", async () => {
    const user = await f.enrolled();
    const wrong = wrongCode(user.secret);
    for (let i = 0; i < STEP_UP_LIMITS.perWindow; i++) {
      const disable = await f.post('/api/auth/2fa/disable', { password: user.password, code: wrong }, user.headers);
      assert.equal(disable.statusCode, 422, disable.body);
    }
    // They were counted in the session's step-up window: the same session cannot go on guessing there.
    assertDetail(
      await f.post('/api/auth/2fa/step-up', { code: f.codeAt(user.secret) }, user.headers),
      429,
      SESSION_LOCKED,
    );
    // A sign-in's codes were never counted: the owner signs in elsewhere with a code.
    const token = await f.challenge(user, newClientAddress());
    const verified = await f.post('/api/auth/2fa/verify', { mfa_token: token, code: f.codeAt(user.secret) });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(await lockoutMails(user.email), 0, 'no sign-in lockout');
  });

  it("a taken session's wrong step-up codes hold that session, not the owner's sign-in or sessions", async () => {
    const owner = await f.enrolled();
    // The session taken from the owner: a full sign-in of the owner's, its token read elsewhere.
    const token = await f.challenge(owner, newClientAddress());
    const signedIn = await f.post('/api/auth/2fa/verify', { mfa_token: token, code: f.codeAt(owner.secret) });
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    f.nextStep();
    const stolen = { authorization: `Bearer ${signedIn.json<{ access_token: string }>().access_token}` };
    const wrong = wrongCode(owner.secret);
    for (let i = 0; i < STEP_UP_LIMITS.perWindow; i++)
      assertDetail(await f.post('/api/auth/2fa/step-up', { code: wrong }, stolen), 401);
    assertDetail(await f.post('/api/auth/2fa/step-up', { code: f.codeAt(owner.secret) }, stolen), 429, SESSION_LOCKED);

    // The owner's own session steps up and changes the password, which signs the taken one out.
    const stepUp = await f.post('/api/auth/2fa/step-up', { code: f.codeAt(owner.secret) }, owner.headers);
    assert.equal(stepUp.statusCode, 200, stepUp.body);
    const fresh = { authorization: `Bearer ${stepUp.json<{ access_token: string }>().access_token}` };
    const changed = await f.t.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers: fresh,
      payload: { current_password: owner.password, new_password: 'a-new-long-password-1' },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((await f.me(stolen.authorization.slice(7))).statusCode, 401, 'the taken session is signed out');
    // And the owner's sign-in's codes were never held.
    f.nextStep();
    const again = await f.challenge({ email: owner.email, password: 'a-new-long-password-1' }, newClientAddress());
    const verified = await f.post('/api/auth/2fa/verify', { mfa_token: again, code: f.codeAt(owner.secret) });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(await lockoutMails(owner.email), 0, 'no sign-in lockout');
    const mails = await f.t.database.rows(
      sql`SELECT 1 FROM outbox WHERE kind = 'mail.send' AND payload->>'to' = ${owner.email}
        AND payload->>'subject' = ${STEP_UP_MAIL}`,
    );
    assert.equal(mails.length, 1, 'the owner is told once about the held session');
  });

  it("wrong codes at enabling count in the session's counters; the right code forgives none of them", async () => {
    const user = await signIn(f.t.app, f.t.database);
    const setup = await f.post('/api/auth/2fa/setup', { password: user.password }, user.headers);
    const { secret } = setup.json<{ secret: string }>();
    for (let i = 0; i < STEP_UP_LIMITS.perWindow - 1; i++) {
      const wrong = await f.post('/api/auth/2fa/enable', { code: wrongCode(secret) }, user.headers);
      assert.equal(wrong.statusCode, 422, wrong.body);
    }
    assert.equal((await f.post('/api/auth/2fa/enable', { code: f.codeAt(secret) }, user.headers)).statusCode, 200);
    f.nextStep();
    assertDetail(await f.post('/api/auth/2fa/step-up', { code: wrongCode(secret) }, user.headers), 401);
    assertDetail(await f.post('/api/auth/2fa/step-up', { code: f.codeAt(secret) }, user.headers), 429, SESSION_LOCKED);
    // None of them in the sign-in's counters (decision 1150).
    const token = await f.challenge(user, newClientAddress());
    const verified = await f.post('/api/auth/2fa/verify', { mfa_token: token, code: f.codeAt(secret) });
    assert.equal(verified.statusCode, 200, verified.body);
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

  it(`a step-up's codes: ${STEP_UP_LIMITS.perSessionDay} a day per session, ${STEP_UP_LIMITS.perAccountDay} across sessions`, async () => {
    const { perSessionDay, perAccountDay } = STEP_UP_LIMITS;
    const cache = createMemoryCache(undefined, undefined, () => clock.now().getTime());
    const attempts = createSecondFactorAttempts({
      cache,
      counters: cache,
      db: f.t.database.db,
      messages: { mail: async () => ({ queued: true }) },
      clock,
    });
    const user = { id: crypto.randomUUID(), email: 'stepped@example.com' };
    const sessions = Array.from({ length: 5 }, () => crypto.randomUUID());
    const counted: number[] = [];
    // Two days of each of five sessions guessing every 90 seconds.
    for (let t = 0; t < 2 * dayMs; t += 90_000) {
      for (const session of sessions) {
        try {
          const attempt = await attempts.reserveStepUp(user, session);
          counted.push(clock.now().getTime());
          await attempt.failed();
        } catch (error) {
          assert.ok(error instanceof AppError && error.code === 'rate_limited', String(error));
        }
      }
      clock.advance(90_000);
    }
    for (let i = 0; i < counted.length; i++) {
      const within = counted.filter((at) => at >= counted[i]! && at < counted[i]! + dayMs).length;
      assert.ok(within <= perAccountDay, `${within} guesses in the 24 hours from guess ${i}`);
    }
    assert.ok(counted.length >= perAccountDay, 'guessing was bounded, not stopped');
    // One session alone reaches its own day, never the account's: another session still steps up.
    const alone = crypto.randomUUID();
    const other = { id: crypto.randomUUID(), email: 'alone@example.com' };
    let guessed = 0;
    for (let t = 0; t < dayMs; t += 90_000) {
      try {
        await (await attempts.reserveStepUp(other, alone)).failed();
        guessed++;
      } catch {}
      clock.advance(90_000);
    }
    assert.equal(guessed, perSessionDay);
    const owner = await attempts.reserveStepUp(other, crypto.randomUUID());
    await owner.succeeded();
    // And the sign-in's codes of that account were never counted.
    await (await attempts.reserve(other)).succeeded();
  });
});
