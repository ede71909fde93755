// A signed-in user proves their account's address with a code mailed to it (decision 845), so the notices
// decision 840 mails only to a verified address reach them. A code works once, for a day, for its own
// account and address; requests are bounded, since each mails an address nobody proved yet.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe('e-mail verification', () => {
  let t: TestApp;
  let smtp: SmtpFake;

  before(async () => {
    smtp = await startSmtpFake();
    t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const post = (user: TestUser, url: string, payload?: object, authorization = user.headers.authorization) =>
    t.app.inject({ method: 'POST', url, headers: { authorization }, ...(payload ? { payload } : {}) });
  const request = (user: TestUser) => post(user, '/api/auth/email/verify-request');
  const verify = (user: TestUser, token: string) => post(user, '/api/auth/email/verify', { token });
  const verified = async (user: TestUser) =>
    (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).json<{
      emailVerified: boolean;
    }>().emailVerified;
  /** The codes mailed to the user so far, oldest first, as the SMTP fake received them. */
  const codesOf = async (user: TestUser) => {
    await t.platform.outbox.drain();
    return smtp.received
      .filter((m) => m.to.includes(user.email) && m.headers.subject === 'Verify your e-mail address')
      .map((m) => /code is:\r?\n\r?\n([A-Za-z0-9_-]{43})\r?\n/.exec(m.raw)?.[1] ?? assert.fail(m.raw));
  };

  it('mails a code that verifies the address, after which a notice is mailed', async () => {
    const user = await signIn(t.app, t.database);
    const testSend = () => t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: user.headers });
    assert.deepEqual((await testSend()).json(), { queued: 0 }, 'no mail to an unverified address (decision 840)');

    const requested = await request(user);
    assert.equal(requested.statusCode, 202, requested.body);
    assert.deepEqual(requested.json(), { success: true });
    const [code] = await codesOf(user);
    const stored = await t.database.rows<{ token_hash: string }>(
      sql`SELECT token_hash FROM email_verification_tokens WHERE user_id = ${user.id}`,
    );
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.token_hash, code, 'only its hash is kept');

    const done = await verify(user, code!);
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(await verified(user), true);
    assert.deepEqual((await testSend()).json(), { queued: 1 });
    await t.platform.outbox.drain();
    assert.ok(smtp.received.some((m) => m.to.includes(user.email) && m.headers.subject === 'Test notification'));

    assert.equal((await request(user)).statusCode, 409, 'already verified');
  });

  it('refuses a reused, a replaced, an expired and another account’s code', async () => {
    const user = await signIn(t.app, t.database);
    const other = await signIn(t.app, t.database);
    assert.equal((await request(user)).statusCode, 202);
    assert.equal((await request(user)).statusCode, 202);
    assert.equal((await request(other)).statusCode, 202);
    const [replaced, live] = await codesOf(user);
    const [othersCode] = await codesOf(other);

    const refused = async (who: TestUser, token: string, detail: string) =>
      assertDetail(await verify(who, token), 400, detail);
    await refused(user, replaced!, 'Invalid verification code');
    await refused(user, othersCode!, 'Invalid verification code');
    await refused(user, 'not-a-code', 'Invalid verification code');
    assert.equal(await verified(user), false);

    assert.equal((await verify(user, live!)).statusCode, 200);
    await refused(user, live!, 'Invalid verification code');

    // Another account's code stayed its own, until it expired.
    await t.database.db.execute(
      sql`UPDATE email_verification_tokens SET expires_at = now() - interval '1 second' WHERE user_id = ${other.id}`,
    );
    await refused(other, othersCode!, 'The verification code has expired; request a new one');
    assert.equal(await verified(other), false);
  });

  it('spends a code once when two verify it at the same time', async () => {
    const user = await signIn(t.app, t.database);
    assert.equal((await request(user)).statusCode, 202);
    const [code] = await codesOf(user);
    const answers = await Promise.all([verify(user, code!), verify(user, code!), verify(user, code!)]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 400, 400]);
  });

  it('refuses a code mailed to an address the account no longer has', async () => {
    const user = await signIn(t.app, t.database);
    assert.equal((await request(user)).statusCode, 202);
    const [code] = await codesOf(user);
    // No route changes an address today (decision 845); the row's change stands for whatever would.
    await t.database.db.execute(sql`UPDATE users SET email = ${`moved-${user.email}`} WHERE id = ${user.id}`);
    assertDetail(
      await verify(user, code!),
      400,
      'The verification code was sent to another address; request a new one',
    );
    assert.equal(await verified(user), false);
  });

  it('mails at most 3 codes an hour per account: the 4th is 429 with Retry-After', async () => {
    const user = await signIn(t.app, t.database);
    for (let i = 0; i < 3; i++) assert.equal((await request(user)).statusCode, 202);
    const fourth = await request(user);
    assert.equal(fourth.statusCode, 429, fourth.body);
    assert.ok(Number(fourth.headers['retry-after']) > 0);
    assert.equal((await codesOf(user)).length, 3);
  });

  it('is refused to API tokens', async () => {
    const user = await signIn(t.app, t.database);
    const made = await post(user, '/api/auth/tokens', { name: 'bot', scopes: ['account:read'] });
    assert.equal(made.statusCode, 201, made.body);
    const token = `Bearer ${made.json<{ token: string }>().token}`;
    assert.equal((await post(user, '/api/auth/email/verify-request', undefined, token)).statusCode, 403);
    assert.equal((await post(user, '/api/auth/email/verify', { token: 'x' }, token)).statusCode, 403);
    assert.deepEqual(await codesOf(user), []);
  });
});
