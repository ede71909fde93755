import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
// The outbox's bookkeeping and sealed payloads, and a suppression set up directly: no operation shows or makes them.
import { emailSuppressions } from '../../../src/modules/notifications/notifications.tables.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import type { MailMessage } from '../../../src/modules/notifications/index.ts';
import { createNotificationsModule } from '../../../src/modules/notifications/index.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, notificationsDeps, type TestApp } from '../../helpers/test-app.ts';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp.ts';

describe('mail through SMTP', () => {
  let smtp: SmtpFake;
  let t: TestApp;
  const clock = fixedClock('2030-04-01T08:00:00.000Z');
  before(async () => {
    smtp = await startSmtpFake();
    t = await buildTestApp({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Trading Platform <alerts@example.com>' } });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const enqueue = async (mail: MailMessage) => {
    const key = `test:${randomUUID()}`;
    assert.deepEqual(await t.modules.notifications.messages.mail(t.database.db, mail, clock.now(), key), {
      queued: true,
    });
    const [row] = await t.database.db.select().from(outbox).where(eq(outbox.dedupeKey, key));
    return row!.id;
  };
  const row = async (id: string) => (await t.database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!;
  const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

  it('sends text and html from MAIL_FROM to the recipient', async () => {
    const id = await enqueue({
      to: 'trader@example.com',
      subject: 'Weekly report',
      text: 'Hello trader, your report is ready.',
      html: '<p>Hello trader</p>',
    });
    await t.platform.outbox.drain();
    const [mail] = mailsTo('trader@example.com');
    assert.ok(mail);
    assert.equal(mail.from, 'alerts@example.com');
    assert.deepEqual(mail.to, ['trader@example.com']);
    assert.equal(mail.headers.from, 'Trading Platform <alerts@example.com>');
    assert.equal(mail.headers.to, 'trader@example.com');
    assert.equal(mail.headers.subject, 'Weekly report');
    assert.match(mail.headers['content-type']!, /^multipart\/alternative/);
    assert.ok(mail.raw.includes('Hello trader, your report is ready.'));
    assert.ok(mail.raw.includes('<p>Hello trader</p>'));
    const sent = await row(id);
    assert.equal(sent.status, 'done');
    assert.match(sent.result!, /^delivered: smtp accepted <.+>$/);
  });

  it('does not send to an address suppressed after the mail was queued', async () => {
    const id = await enqueue({ to: 'bounced@example.com', subject: 'Hi', text: 'hello' });
    await t.database.db.insert(emailSuppressions).values({ email: 'bounced@example.com', reason: 'bounced' });
    await t.platform.outbox.drain();
    assert.equal(mailsTo('bounced@example.com').length, 0);
    const skipped = await row(id);
    assert.deepEqual([skipped.status, skipped.result], ['done', 'skipped: the recipient is on the suppression list']);
  });

  it('stores a sensitive mail sealed, sends it in clear, then wipes it from the row', async () => {
    const secret = 'Zebra-42-Quartz';
    const id = await enqueue({
      to: 'reset@example.com',
      subject: 'Your new password',
      text: `Your new password is ${secret}`,
      sensitive: true,
    });
    const queued = await row(id);
    assert.equal(typeof queued.payload.sealed, 'string');
    assert.ok(!JSON.stringify(queued.payload).includes(secret));

    await t.platform.outbox.drain();
    const [mail] = mailsTo('reset@example.com');
    assert.ok(mail!.raw.includes(`Your new password is ${secret}`));
    const sent = await row(id);
    assert.equal(sent.status, 'done');
    assert.deepEqual(sent.payload, { to: 'reset@example.com', subject: 'Your new password', redacted: true });
    assert.ok(!t.logText().includes(secret));
    assert.ok(!t.logText().includes('Your new password is'));
  });

  it('dead-letters a mail whose recipient the server refuses for good, wiping sealed content', async () => {
    smtp.rejectRecipients.add('gone@example.com');
    const id = await enqueue({ to: 'gone@example.com', subject: 'Reset', text: 'code 991122', sensitive: true });
    await t.platform.outbox.drain();
    const dead = await row(id);
    assert.equal(dead.status, 'dead');
    // The relay's reply quotes the address, as real ones do; the dashboard masks it (safe-text).
    assert.match(dead.lastError!, /^smtp: EENVELOPE 550: .*<gone@example\.com>: Recipient address rejected/);
    assert.deepEqual(dead.payload, { to: 'gone@example.com', subject: 'Reset', redacted: true });
    assert.ok(!t.logText().includes('991122'));
  });

  it('status reports the last delivery and the failures', async () => {
    const status = await createNotificationsModule(t.platform, notificationsDeps(t)).status();
    assert.deepEqual(status.mail, {
      configured: true,
      pending: 0,
      dead: 1,
      lastSuccessAt: new Date('2030-04-01T08:00:00.000Z'),
      lastError: status.mail.lastError,
      // The refused mail was tried when the clock read this; the dashboard shows it as last_error_at.
      lastErrorAt: new Date('2030-04-01T08:00:00.000Z'),
    });
    assert.match(status.mail.lastError!, /550/);
  });
});

describe('mail without a reachable or configured server', () => {
  it('retries while the SMTP server is down, keeping the sealed content for the retry', async () => {
    const port = await closedPort();
    const t = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
    try {
      await t.modules.notifications.messages.mail(
        t.database.db,
        { to: 'a@example.com', subject: 's', text: 'secret body', sensitive: true },
        t.platform.clock.now(),
      );
      await t.platform.outbox.drain();
      const [row] = await t.database.db.select().from(outbox).where(eq(outbox.kind, 'mail.send'));
      assert.equal(row!.status, 'pending');
      assert.match(row!.lastError!, /^smtp: ESOCKET: connect ECONNREFUSED/);
      assert.equal(typeof row!.payload.sealed, 'string');
    } finally {
      await t.close();
    }
  });

  it('records only when SMTP_URL is unset, and wipes a sensitive body all the same', async () => {
    const t = await buildTestApp();
    try {
      await t.modules.notifications.messages.mail(
        t.database.db,
        { to: 'b@example.com', subject: 'plain', text: 'hello' },
        t.platform.clock.now(),
      );
      await t.modules.notifications.messages.mail(
        t.database.db,
        { to: 'c@example.com', subject: 'secret', text: 'token 55', sensitive: true },
        t.platform.clock.now(),
      );
      await t.platform.outbox.drain();
      const rows = await t.database.db.select().from(outbox).where(eq(outbox.kind, 'mail.send'));
      assert.deepEqual(
        rows.map((r) => [r.status, r.result]),
        [
          ['done', 'recorded only: SMTP_URL is not set'],
          ['done', 'recorded only: SMTP_URL is not set'],
        ],
      );
      assert.equal(rows.find((r) => r.payload.to === 'b@example.com')!.payload.text, 'hello');
      assert.deepEqual(rows.find((r) => r.payload.to === 'c@example.com')!.payload, {
        to: 'c@example.com',
        subject: 'secret',
        redacted: true,
      });
      const status = await createNotificationsModule(t.platform, notificationsDeps(t)).status();
      assert.deepEqual(status.mail, {
        configured: false,
        pending: 0,
        dead: 0,
        lastSuccessAt: null,
        lastError: null,
        lastErrorAt: null,
      });
    } finally {
      await t.close();
    }
  });
});
