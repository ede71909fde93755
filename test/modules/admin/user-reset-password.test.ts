import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { MAIL_KIND } from '../../../src/modules/notifications/notifications.outbox.ts';
import { passwordResetTokens } from '../../../src/modules/users/users.tables.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import { mailerSpecDelivery } from '../../fakes/webhook-senders.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertValidation } from './admin-fixtures.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const MAILER_SECRET = 'whsec_reset_password_mailer_0123456789';

describe('admin: reset a password', () => {
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    t = await buildTestApp({ env: { MAILER_WEBHOOK_SECRET: MAILER_SECRET } });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  beforeEach(async () => {
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });

  const reset = (query: string, headers = admin.headers) =>
    t.app.inject({ method: 'POST', url: `/api/admin/users/reset-password${query}`, headers });
  const login = (email: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  /** The admin audit entries about a user, as the activity operation shows them. */
  const activity = async (userId: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/admin/users/${userId}/activity?limit=100`,
        headers: admin.headers,
      })
    ).json() as {
      action: string;
      subject_user_id: string | null;
      details: unknown;
    }[];
  // Queued mails are read from the outbox: that a body is sealed at rest, and that no mail was queued, show only there.
  const mailsTo = async (email: string) =>
    (await t.database.db.select().from(outbox).where(eq(outbox.kind, MAIL_KIND))).filter((m) => m.payload.to === email);

  /** The new password, read back from the sealed mail the way the mail sender will. */
  async function mailedPassword(email: string): Promise<string> {
    const [mail] = await mailsTo(email);
    assert.ok(mail, 'a mail was queued');
    assert.equal(mail.payload.text, undefined, 'the body is not stored in the clear');
    const opened = JSON.parse(
      t.platform.secretBox.open(String(mail.payload.sealed), { table: 'outbox', column: 'payload.sealed', row: email }),
    ) as { text: string };
    const password = /Your new password: (\S+)/.exec(opened.text)?.[1];
    assert.ok(password, 'the mail carries the new password');
    return password;
  }

  it(
    'sets a strong random password, mails it sealed, revokes ' + 'sessions; the password is never returned or logged',
    async () => {
      // No operation issues or shows reset links: a pending one is written to its table.
      await t.database.db
        .insert(passwordResetTokens)
        .values({ userId: member.id, tokenHash: `pending-${member.id}`, expiresAt: new Date(Date.now() + 3_600_000) });
      const response = await reset(`?userId=${member.id}&email=${encodeURIComponent(member.email.toUpperCase())}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true, emailSent: true });

      const password = await mailedPassword(member.email);
      assert.ok(password.length >= 20);
      assert.match(password, /[A-Z]/);
      assert.match(password, /[a-z]/);
      assert.match(password, /[0-9]/);
      assert.match(password, /[^A-Za-z0-9]/);
      assert.ok(!response.body.includes(password));
      assert.ok(t.logText().includes('reset-password'), 'the request was logged');
      assert.ok(!t.logText().includes(password), 'the new password is not in the log');
      const trail = await activity(member.id);
      const audits = trail.filter((e) => e.action === 'admin.user.password_reset');
      assert.equal(audits.length, 1);
      assert.ok(!JSON.stringify(trail).includes(password), 'the new password is not in the audit trail');
      assert.deepEqual(audits[0]!.details, { sendEmail: true, emailSent: true, sessionsRevoked: 1 });

      const old = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: member.headers });
      assert.equal(old.statusCode, 401, 'the earlier session was revoked');
      assert.equal((await login(member.email, member.password)).statusCode, 401, 'the old password no longer works');
      assert.equal((await login(member.email, password)).statusCode, 200, 'the new password works');
      // Whether the pending link was voided shows only in its table.
      const [token] = await t.database.db
        .select()
        .from(passwordResetTokens)
        .where(eq(passwordResetTokens.userId, member.id));
      assert.ok(token!.usedAt instanceof Date, 'pending reset links are void');
    },
  );

  it('does not mail when sendEmail is false', async () => {
    const response = await reset(`?userId=${member.id}&email=${encodeURIComponent(member.email)}&sendEmail=false`);
    assert.deepEqual(response.json(), { success: true, emailSent: false });
    assert.equal((await mailsTo(member.email)).length, 0);
    assert.equal((await login(member.email, member.password)).statusCode, 401, 'the password was still changed');
  });

  it('does not mail a suppressed address, and says so', async () => {
    // A hard bounce reported by the mail provider suppresses the address.
    const now = new Date().toISOString();
    const bounce = mailerSpecDelivery(MAILER_SECRET, {
      type: 'email.bounced',
      created_at: now,
      data: {
        email_id: 'bounce-1',
        to: [member.email],
        subject: 'Welcome',
        created_at: now,
        bounce: { type: 'Permanent', subType: 'General' },
      },
    });
    const reported = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks/mailer',
      headers: bounce.headers,
      payload: bounce.body,
    });
    assert.equal(reported.json().status, 'processed');
    const response = await reset(`?userId=${member.id}&email=${encodeURIComponent(member.email)}`);
    assert.deepEqual(response.json(), { success: true, emailSent: false });
    assert.equal((await mailsTo(member.email)).length, 0);
  });

  it('answers 404 when userId and email do not name the same user, and changes nothing', async () => {
    for (const query of [
      `?userId=${member.id}&email=${encodeURIComponent(admin.email)}`,
      `?userId=${UNKNOWN_ID}&email=${encodeURIComponent(member.email)}`,
      `?userId=not-a-uuid&email=${encodeURIComponent(member.email)}`,
    ]) {
      const response = await reset(query);
      assert.equal(response.statusCode, 404, query);
      assert.deepEqual(response.json(), { detail: 'No user matches this userId and email' });
    }
    assert.equal((await login(member.email, member.password)).statusCode, 200);
  });

  it('answers 409 for a deleted user', async () => {
    await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${member.id}`, headers: admin.headers });
    const response = await reset(`?userId=${member.id}&email=${encodeURIComponent(member.email)}`);
    assert.equal(response.statusCode, 409);
    assert.deepEqual(response.json(), { detail: 'The user is deleted; activate it before resetting its password' });
  });

  it(
    'refuses an admin resetting their own password with 409, ' + 'and changes nothing: no self-lockout (decision 097)',
    async () => {
      for (const sendEmail of ['false', 'true']) {
        const response = await reset(
          `?userId=${admin.id}&email=${encodeURIComponent(admin.email)}&sendEmail=${sendEmail}`,
        );
        assert.equal(response.statusCode, 409);
        assert.deepEqual(response.json(), {
          detail: 'You cannot reset your own password here; change it with POST /api/auth/password',
        });
      }
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers })).statusCode,
        200,
        'the session is not revoked',
      );
      assert.equal((await login(admin.email, admin.password)).statusCode, 200, 'the password is unchanged');
      assert.deepEqual(await mailsTo(admin.email), []);
      const ownResets = (await activity(admin.id)).filter(
        (e) => e.action === 'admin.user.password_reset' && e.subject_user_id === admin.id,
      );
      assert.deepEqual(ownResets, []);
    },
  );

  it('reports missing and invalid parameters in the Pydantic shape', async () => {
    const detail = assertValidation(await reset(''), [
      { loc: ['query', 'userId'], type: 'missing' },
      { loc: ['query', 'email'], type: 'missing' },
    ]);
    assert.deepEqual(detail[0], { type: 'missing', loc: ['query', 'userId'], msg: 'Field required', input: null });
    assertValidation(await reset(`?userId=${member.id}&email=${encodeURIComponent(member.email)}&sendEmail=maybe`), [
      { loc: ['query', 'sendEmail'], type: 'bool_parsing' },
    ]);
  });
});
