// Account notices by mail go only to a verified address (decision 840): open sign-up takes any address, so
// whoever registered someone else's could otherwise have us mail them at the pace of their own actions. The
// same notice still reaches the user's other channels, and a verified user's mail arrives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { botEnv, linkTelegram, startUpdates } from './telegram-fixtures.ts';

describe('notices by mail need a verified address', () => {
  let t: TestApp;
  let smtp: SmtpFake;
  let bot: TelegramBot;

  before(async () => {
    smtp = await startSmtpFake();
    // Each chat is linked (the bot says so there) and then told: the one message a second per chat is lifted.
    bot = await startTelegramBot({ perChatIntervalMs: 0 });
    t = await buildTestApp({ env: { SMTP_URL: smtp.url, ...botEnv(bot) } });
    startUpdates(t);
  });
  after(async () => {
    await t.close();
    await smtp.close();
    await bot.close();
  });

  const mailsTo = (user: TestUser) => smtp.received.filter((m) => m.to.includes(user.email));
  /** Links the chat through the bot (decision 860), then chooses mail and that chat for halts. */
  const choose = async (user: TestUser, chatId: string) => {
    await linkTelegram(t, bot, user, chatId);
    await t.platform.outbox.drain();
    await t.database.db.execute(sql`DELETE FROM outbox`);
    bot.sent.length = 0;
    const chose = await t.app.inject({
      method: 'PUT',
      url: '/api/notifications/preferences',
      headers: user.headers,
      payload: { channels: [{ type: 'email' }, { type: 'telegram', chat_id: chatId }], events: ['trading.halted'] },
    });
    assert.equal(chose.statusCode, 200, chose.body);
  };
  const verify = (user: TestUser) => t.modules.admin.users.updateUser(user.id, { emailVerified: true }, { id: null });

  it("mails an account event only to the verified user; the unverified one's chat still hears it", async () => {
    const unverified = await signIn(t.app, t.database);
    const verified = await signIn(t.app, t.database);
    await verify(verified);
    await choose(unverified, '700000001');
    await choose(verified, '700000002');
    for (const user of [unverified, verified]) {
      const halted = await t.app.inject({
        method: 'POST',
        url: '/api/trading/halt',
        headers: user.headers,
        payload: { reason: 'checking the notices' },
      });
      assert.equal(halted.statusCode, 200, halted.body);
    }
    await waitFor(
      async () =>
        (await t.database.rows(sql`SELECT 1 FROM outbox WHERE kind = 'notify.send'`)).length === 2 &&
        (await t.database.rows(sql`SELECT 1 FROM outbox WHERE kind = 'mail.send'`)).length >= 1,
      'both halts queued',
    );
    await t.platform.outbox.drain();
    assert.equal(mailsTo(verified).length, 1, "the verified user's notice arrives by mail");
    assert.equal(mailsTo(verified)[0]!.headers.subject, 'Trading halted');
    assert.deepEqual(mailsTo(unverified), [], 'nothing is mailed to an address nobody verified');
    assert.deepEqual(bot.sent.map((m) => m.chatId).sort(), ['700000001', '700000002'], 'both chats were told');
  });

  it('queues no test mail to an unverified address, and does once it is verified', async () => {
    const user = await signIn(t.app, t.database);
    await choose(user, '700000003');
    const send = () => t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: user.headers });
    const before = await send();
    assert.equal(before.statusCode, 202, before.body);
    assert.deepEqual(before.json(), { queued: 1 }, 'only the chat');
    await t.platform.outbox.drain();
    assert.deepEqual(mailsTo(user), []);

    await verify(user);
    assert.deepEqual((await send()).json(), { queued: 2 });
    await t.platform.outbox.drain();
    assert.equal(mailsTo(user).length, 1);
    assert.equal(mailsTo(user)[0]!.headers.subject, 'Test notification');
  });
});
