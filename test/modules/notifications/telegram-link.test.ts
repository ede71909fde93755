// Telegram chats proven the user's (decision 860): a chat is linked only by opening the bot's one-time link
// in it and pressing Start, which the bot reads by long polling getUpdates; a code works once, for its
// user only, within ten minutes; a chat id typed in before linking existed is told nothing until linked.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { TEST_MESSAGE } from '../../../src/modules/notifications/notices.domain.ts';
import { enqueue, NOTIFY_KIND } from '../../../src/modules/notifications/notifications.outbox.ts';
import { createTelegramLinkRepository } from '../../../src/modules/notifications/telegram-link.repository.ts';
import { REFUSED_LINK_LOG_INTERVAL_MS } from '../../../src/modules/notifications/telegram-link.service.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import {
  allRead,
  askLink,
  BOT_USERNAME,
  botEnv,
  linkTelegram,
  startUpdates,
  storeTypedChat,
  telegramChannels,
} from './telegram-fixtures.ts';

describe('linking a Telegram chat', () => {
  let t: TestApp;
  let bot: TelegramBot;
  const clock = shiftedClock();
  let chats = 800_000_000;
  /** A chat of its own for each use: Telegram allows one message a second per chat. */
  const newChat = () => String(chats++);

  before(async () => {
    bot = await startTelegramBot();
    t = await buildTestApp({ env: botEnv(bot), clock });
    startUpdates(t);
  });
  after(async () => {
    await t.close();
    await bot.close();
  });
  beforeEach(async () => {
    await t.platform.outbox.drain();
    await t.database.db.execute(sql`DELETE FROM outbox`);
    bot.sent.length = 0;
  });

  const sendTest = (user: TestUser) =>
    t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: user.headers });
  const sentTo = (chat: string) => bot.sent.filter((m) => m.chatId === chat).map((m) => m.text.split('\n')[0]);

  it('links the chat the link is opened in: the bot says so there, and notifications follow', async () => {
    const alice = await signIn(t.app, t.database);
    // Mail goes only to a verified address (decision 840).
    await t.modules.admin.users.updateUser(alice.id, { emailVerified: true }, { id: null });
    const chat = newChat();
    const link = await askLink(t, alice);
    assert.match(link.code, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(link.url, `https://t.me/${BOT_USERNAME}?start=${link.code}`);
    const lasts = Date.parse(link.expires_at) - clock.now().getTime();
    assert.ok(lasts > 9 * 60_000 && lasts <= 10 * 60_000, `lasts ten minutes: ${lasts} ms`);
    const stored = JSON.stringify(await t.database.rows(sql`SELECT * FROM telegram_link_codes`));
    assert.ok(!stored.includes(link.code), 'the code is stored hashed');

    bot.sendUpdate(chat, `/start ${link.code}`);
    await waitFor(async () => (await telegramChannels(t, alice)).length > 0, 'the chat linked');
    assert.deepEqual(await telegramChannels(t, alice), [{ type: 'telegram', chat_id: chat, linked: true }]);
    const rows = JSON.stringify(await t.database.rows(sql`SELECT * FROM notification_preferences`));
    assert.ok(!rows.includes(chat), 'the chat id is sealed at rest');
    assert.equal((await t.database.rows(sql`SELECT 1 FROM telegram_link_codes`)).length, 0, 'the code is gone');

    await t.platform.outbox.drain();
    assert.deepEqual(sentTo(chat), ['Telegram linked']);
    assert.deepEqual(await sendTest(alice).then((r) => r.json()), { queued: 2 }, 'mail and the chat');
    // Telegram takes one message a second per chat: the test notification waits out its 429.
    await waitFor(async () => {
      await t.platform.outbox.drain();
      return sentTo(chat).length === 2;
    }, 'the test notification delivered');
    assert.deepEqual(sentTo(chat), ['Telegram linked', 'Test notification']);
    const poll = bot.polls.at(-1)!;
    assert.deepEqual([poll.timeout, poll.allowed_updates], [30, ['message']]);
  });

  it("binds a code to its user, once: the same code from another chat links nobody's", async () => {
    const alice = await signIn(t.app, t.database);
    const bob = await signIn(t.app, t.database);
    const [aliceChat, otherChat] = [newChat(), newChat()];
    const { code } = await askLink(t, alice);
    bot.sendUpdate(aliceChat, `/start ${code}`);
    bot.sendUpdate(otherChat, `/start ${code}`);
    await allRead(bot);
    assert.deepEqual(await telegramChannels(t, alice), [{ type: 'telegram', chat_id: aliceChat, linked: true }]);
    assert.deepEqual(await telegramChannels(t, bob), []);
    await t.platform.outbox.drain();
    assert.deepEqual(
      sentTo(otherChat),
      ['This link has expired or was already used: ask for a new one on your notifications page.'],
      'the other chat is only told the link is used',
    );
  });

  it('refuses a code past its ten minutes, one replaced by a newer, and a Start in a group', async () => {
    const alice = await signIn(t.app, t.database);
    const { code: expired } = await askLink(t, alice);
    clock.advance(10 * 60_000 + 1_000);
    bot.sendUpdate(newChat(), `/start ${expired}`);
    await allRead(bot);
    const { code: replaced } = await askLink(t, alice);
    const { code: current } = await askLink(t, alice);
    bot.sendUpdate(newChat(), `/start ${replaced}`);
    bot.sendUpdate(`-100${newChat()}`, `/start@${BOT_USERNAME} ${current}`, 'group');
    bot.sendUpdate(newChat(), 'hello');
    await allRead(bot);
    assert.deepEqual(await telegramChannels(t, alice), []);
    const outcomes = t
      .logLines()
      .filter((line) => line.msg === 'a telegram link was not used')
      .map((line) => line.outcome);
    assert.deepEqual(
      outcomes.slice(-3),
      ['expired', 'unknown code', 'not a private chat'],
      'a message not a link is not logged',
    );
    // The current code still works once, from a private chat.
    const chat = newChat();
    bot.sendUpdate(chat, `/start ${current}`);
    await waitFor(async () => (await telegramChannels(t, alice)).length > 0, 'the chat linked');
  });

  it('logs refused links of one kind once a minute, then with how many there were (decision 1043)', async () => {
    clock.advance(REFUSED_LINK_LOG_INTERVAL_MS);
    const lines = () => t.logLines().filter((line) => line.outcome === 'unknown code');
    const before = lines().length;
    // A stranger's links, as fast as Telegram delivers them: one line, not thirty.
    for (let i = 0; i < 30; i++) bot.sendUpdate(newChat(), `/start stranger${i}`);
    await allRead(bot);
    assert.equal(lines().length - before, 1);
    assert.equal(lines().at(-1)!.msg, 'a telegram link was not used');

    clock.advance(REFUSED_LINK_LOG_INTERVAL_MS);
    bot.sendUpdate(newChat(), '/start strangerAfter');
    await allRead(bot);
    assert.equal(lines().length - before, 2);
    assert.equal(lines().at(-1)!.msg, 'telegram links were not used');
    assert.equal(lines().at(-1)!.refused, 30, 'the 29 not logged and this one');
  });

  it('tells an unproven chat (typed in before linking) nothing until it is linked from that chat', async () => {
    const carol = await signIn(t.app, t.database);
    // Mail goes only to a verified address (decision 840).
    await t.modules.admin.users.updateUser(carol.id, { emailVerified: true }, { id: null });
    const chat = newChat();
    const id = await storeTypedChat(t, bot, carol, chat);
    assert.deepEqual(await telegramChannels(t, carol), [{ type: 'telegram', chat_id: chat, linked: false }]);
    assert.deepEqual(await sendTest(carol).then((r) => r.json()), { queued: 1 }, 'mail only');
    const halt = await t.app.inject({
      method: 'POST',
      url: '/api/trading/halt',
      headers: carol.headers,
      payload: { reason: 'holiday' },
    });
    assert.equal(halt.statusCode, 200, halt.body);
    await waitFor(
      async () =>
        (
          await t.database.rows(
            sql`SELECT 1 FROM outbox WHERE kind = 'mail.send' AND payload->>'subject' = 'Trading halted'`,
          )
        ).length > 0,
      'the halt mailed',
    );
    await t.platform.outbox.drain();
    assert.deepEqual(sentTo(chat), [], 'nothing to the unproven chat');
    assert.equal((await t.database.rows(sql`SELECT 1 FROM outbox WHERE kind = 'notify.send'`)).length, 0);
    // A notice queued before this server proved chats is skipped when its turn comes.
    await enqueue(
      {
        kind: NOTIFY_KIND,
        payload: { userId: carol.id, channelId: id, message: { ...TEST_MESSAGE } },
        dedupeKey: 'old',
      },
      clock.now(),
      t.database.db,
    );
    await t.platform.outbox.drain();
    const [old] = await t.database.rows<{ status: string; result: string }>(
      sql`SELECT status, result FROM outbox WHERE kind = 'notify.send'`,
    );
    assert.deepEqual(old, { status: 'done', result: 'skipped: the Telegram chat is not linked' });
    assert.deepEqual(sentTo(chat), []);

    // Sent back as shown it stays (unproven); a chat id not already there is refused.
    const put = (payload: object) =>
      t.app.inject({ method: 'PUT', url: '/api/notifications/preferences', headers: carol.headers, payload });
    const kept = await put({
      channels: [{ type: 'telegram', chat_id: chat, linked: true }],
      events: ['trading.halted'],
    });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.deepEqual(kept.json<{ channels: unknown[] }>().channels, [
      { type: 'telegram', chat_id: chat, linked: false },
    ]);
    const typed = assertIssue(
      await put({ channels: [{ type: 'telegram', chat_id: newChat() }], events: [] }),
      ['body', 'channels', 0, 'chat_id'],
      'value_error',
    );
    assert.match(typed.msg, /POST \/api\/notifications\/telegram\/link/);

    await linkTelegram(t, bot, carol, chat);
    assert.deepEqual(await telegramChannels(t, carol), [{ type: 'telegram', chat_id: chat, linked: true }]);
    await t.platform.outbox.drain();
    assert.deepEqual(sentTo(chat), ['Telegram linked']);
  });

  it('keeps one reader of the updates per deployment: another instance does not get the lock', async (c) => {
    if (t.database.kind === 'pglite') return c.skip('PGlite serves one process');
    // The app's reader holds the lock: another instance's would wait in standby.
    const other = createTelegramLinkRepository(t.database);
    assert.equal(await other.whileHolding(async () => assert.fail('ran without the lock')), false);
    await t.modules.notifications.hooks.closed();
    let ran = false;
    assert.equal(
      await other.whileHolding(async () => {
        ran = true;
      }),
      true,
    );
    assert.ok(ran, 'the lock is free once the reader stopped');
    startUpdates(t);
  });

  it('needs a bearer token, and answers 503 where the server has no bot username', async () => {
    assertDetail(await t.app.inject({ method: 'POST', url: '/api/notifications/telegram/link' }), 401);
    const bare = await buildTestApp({
      env: { TELEGRAM_BOT_TOKEN: bot.token, TELEGRAM_API_URL: bot.url },
      keepData: true,
    });
    try {
      const dave = await signIn(bare.app, bare.database);
      const refused = await bare.app.inject({
        method: 'POST',
        url: '/api/notifications/telegram/link',
        headers: dave.headers,
      });
      assertDetail(refused, 503);
      assert.match(refused.json<{ detail: string }>().detail, /TELEGRAM_BOT_USERNAME/);
    } finally {
      await bare.close();
    }
  });
});
