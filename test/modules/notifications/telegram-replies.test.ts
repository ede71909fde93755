// What the bot answers to a message that linked nothing (decision 921): a stale or used link, a Start in a
// group, a plain message each get one sentence; and since anyone can write to the bot, the answers are
// bounded per chat (one a minute), per poll (three of one getUpdates answer) and per minute (twenty); the
// reader's stop cuts an answer in flight.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { REPLY_BOUNDS } from '../../../src/modules/notifications/telegram-replies.domain.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { allRead, askLink, BOT_USERNAME, botEnv, startUpdates } from './telegram-fixtures.ts';

describe("the bot's answers to messages that link nothing", () => {
  let t: TestApp;
  let bot: TelegramBot;
  const clock = shiftedClock();
  let chats = 820_000_000;
  const newChat = () => String(chats++);

  before(async () => {
    // The per-chat bound under test is ours: the fake's one a second per chat is lifted.
    bot = await startTelegramBot({ perChatIntervalMs: 0 });
    t = await buildTestApp({ env: botEnv(bot), clock });
    startUpdates(t);
  });
  after(async () => {
    await t.close();
    await bot.close();
  });
  beforeEach(() => {
    // A new minute: every bound starts afresh.
    clock.advance(REPLY_BOUNDS.perChatMs + 60_000);
    bot.sent.length = 0;
  });

  const sentTo = (chat: string) => bot.sent.filter((m) => m.chatId === chat).map((m) => m.text);

  it('tells a stale or used link, a Start in a group and a plain message what to do, in one sentence', async () => {
    const alice = await signIn(t.app, t.database);
    const { code: expired } = await askLink(t, alice);
    clock.advance(10 * 60_000 + 1_000);
    const [staleChat, usedChat, groupChat, plainChat, bareChat, groupTalk] = [
      newChat(),
      newChat(),
      `-100${newChat()}`,
      newChat(),
      newChat(),
      `-100${newChat()}`,
    ];
    bot.sendUpdate(staleChat, `/start ${expired}`);
    await allRead(bot);
    const { code } = await askLink(t, alice);
    bot.sendUpdate(newChat(), `/start ${code}`);
    await allRead(bot);
    bot.sendUpdate(usedChat, `/start ${code}`);
    bot.sendUpdate(groupChat, `/start@${BOT_USERNAME} ${code}`, 'group');
    bot.sendUpdate(plainChat, 'hello?');
    bot.sendUpdate(bareChat, '/start');
    bot.sendUpdate(groupTalk, 'hello all', 'group');
    await allRead(bot);
    const stale = 'This link has expired or was already used: ask for a new one on your notifications page.';
    assert.deepEqual(sentTo(staleChat), [stale]);
    assert.deepEqual(sentTo(usedChat), [stale], 'a used code is told as an expired one');
    assert.deepEqual(sentTo(groupChat), [
      'Links work only in a private chat with this bot: open the link from your notifications page.',
    ]);
    const howTo = 'To get notifications here, open the link from your notifications page and press Start.';
    assert.deepEqual(sentTo(plainChat), [howTo]);
    assert.deepEqual(sentTo(bareChat), [howTo]);
    assert.deepEqual(sentTo(groupTalk), [], 'a group is not talked to unless given a link');
  });

  it('answers one chat once a minute, whatever it writes', async () => {
    const chat = newChat();
    for (let i = 0; i < 5; i++) bot.sendUpdate(chat, `hello ${i}`);
    await allRead(bot);
    bot.sendUpdate(chat, '/start not-a-code');
    await allRead(bot);
    assert.equal(sentTo(chat).length, 1);
    clock.advance(REPLY_BOUNDS.perChatMs);
    bot.sendUpdate(chat, 'still there?');
    await allRead(bot);
    assert.equal(sentTo(chat).length, 2, 'answered again a minute later');
  });

  it('answers at most three messages of one poll, and twenty a minute, of many chats', async () => {
    // Read while the reader is stopped: the next poll gets them all at once.
    await t.modules.notifications.hooks.closed();
    const many = Array.from({ length: 8 }, () => newChat());
    for (const chat of many) bot.sendUpdate(chat, 'hi');
    startUpdates(t);
    await allRead(bot);
    assert.equal(bot.sent.length, REPLY_BOUNDS.perPoll, 'three of the eight, all read');
    // One by one, each its own poll: twenty in a minute, then none.
    clock.advance(60_000);
    bot.sent.length = 0;
    for (let i = 0; i <= REPLY_BOUNDS.perMinute; i++) {
      bot.sendUpdate(newChat(), 'hi');
      await allRead(bot);
    }
    assert.equal(bot.sent.length, REPLY_BOUNDS.perMinute, 'the twenty-first is not answered');
    clock.advance(60_000);
    bot.sendUpdate(newChat(), 'hi');
    await allRead(bot);
    assert.equal(bot.sent.length, REPLY_BOUNDS.perMinute + 1, 'a new minute, a new answer');
  });

  it('cuts an answer in flight when the reader stops, as it cuts the poll', async () => {
    bot.respondNext('hang');
    const asked = bot.paths.length;
    bot.sendUpdate(newChat(), 'anyone?');
    await waitFor(() => bot.paths.slice(asked).some((p) => p.endsWith('/sendMessage')), 'the answer sent');
    const started = performance.now();
    await t.modules.notifications.hooks.closed();
    const tookMs = performance.now() - started;
    assert.ok(tookMs < 3_000, `stopped in ${Math.round(tookMs)} ms, not at the send's 10 s bound`);
    startUpdates(t);
  });
});
