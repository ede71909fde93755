// The follow-ups of the Telegram link (decision 861): a link and a PUT of the preferences at the same moment
// both keep their change (each read-modify-write holds the preferences' row lock); a chat whose user blocked
// the bot (403), or that Telegram no longer knows (400 chat not found), is unlinked and its notice finished.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { ResolvedAddress } from '../../../src/platform/host-lookup.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { askLink, botEnv, linkTelegram, startUpdates, storeTypedChat, telegramChannels } from './telegram-fixtures.ts';

describe('Telegram links and unlinks, without losing a change', () => {
  let t: TestApp;
  let bot: TelegramBot;
  let chats = 810_000_000;
  const newChat = () => String(chats++);
  /** A name whose resolution waits until the test lets it go: holds a PUT between its read and its save. */
  const HELD = 'held.example';
  let held: { asked: boolean; release: () => void; gate: Promise<void> };
  const hold = () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    held = { asked: false, release, gate };
  };

  before(async () => {
    bot = await startTelegramBot({ perChatIntervalMs: 0 });
    hold();
    t = await buildTestApp({
      env: botEnv(bot),
      lookup: async (hostname): Promise<ResolvedAddress[]> => {
        if (hostname !== HELD)
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        held.asked = true;
        await held.gate;
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
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

  const put = (user: TestUser, payload: object) =>
    t.app.inject({ method: 'PUT', url: '/api/notifications/preferences', headers: user.headers, payload });
  const preferences = async (user: TestUser) =>
    (await t.app.inject({ method: 'GET', url: '/api/notifications/preferences', headers: user.headers })).json<{
      channels: { type: string; chat_id?: string; linked?: boolean; url?: string }[];
      events: string[];
    }>();
  const sentTo = (chat: string) => bot.sent.filter((m) => m.chatId === chat).map((m) => m.text.split('\n')[0]);

  /** A user with a chat typed in before linking existed (not linked), told of trading halts. */
  async function withTypedChat(): Promise<{ user: TestUser; chat: string }> {
    const user = await signIn(t.app, t.database);
    const chat = newChat();
    await storeTypedChat(t, bot, user, chat);
    return { user, chat };
  }

  it('keeps both a link made while a PUT is checked and the PUT', async () => {
    const { user, chat } = await withTypedChat();
    hold();
    // The PUT read the preferences, and waits on the webhook's name before it saves.
    const saving = put(user, {
      channels: [
        { type: 'telegram', chat_id: chat },
        { type: 'webhook', url: `https://${HELD}/hook`, format: 'slack' },
      ],
      events: [],
    });
    await waitFor(() => held.asked, 'the PUT checking its webhook');
    await linkTelegram(t, bot, user, chat);
    held.release();
    const saved = await saving;
    assert.equal(saved.statusCode, 200, saved.body);
    const now = await preferences(user);
    assert.deepEqual(now.events, [], "the PUT's events");
    assert.deepEqual(
      now.channels.map((c) => [c.type, c.linked ?? c.url]),
      [
        ['telegram', true],
        ['webhook', `https://${HELD}/…`],
      ],
      'the link kept, and the webhook added',
    );
  });

  it('keeps both a PUT and a link waiting on the same row lock (PostgreSQL)', async (c) => {
    if (t.database.kind === 'pglite') return c.skip('PGlite runs one transaction at a time: they cannot interleave');
    const { user, chat } = await withTypedChat();
    const { code } = await askLink(t, user);
    const waiting = async () =>
      (
        await t.database.rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      )[0]!.n;
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // Another connection holds the preferences' row: the PUT, then the link, wait for it in that order.
    const holder = t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1 FROM notification_preferences WHERE user_id = ${user.id} FOR UPDATE`);
      locked();
      await released;
    });
    await isLocked;
    let saving: ReturnType<typeof put> | undefined;
    try {
      saving = put(user, { channels: [{ type: 'telegram', chat_id: chat }], events: [] });
      await waitFor(async () => (await waiting()) === 1, 'the PUT waiting for the row');
      bot.sendUpdate(chat, `/start ${code}`);
      await waitFor(async () => (await waiting()) === 2, 'the link waiting for the row');
    } finally {
      release();
      await holder;
    }
    assert.equal((await saving)?.statusCode, 200);
    await waitFor(async () => bot.pending() === 0, 'the link handled');
    const now = await preferences(user);
    assert.deepEqual(now.events, [], "the PUT's events");
    assert.deepEqual(await telegramChannels(t, user), [{ type: 'telegram', chat_id: chat, linked: true }]);
  });

  it('unlinks a chat whose user blocked the bot, finishes its notice, and sends nothing more until linked again', async () => {
    const user = await signIn(t.app, t.database);
    // Mail goes only to a verified address (decision 840).
    await t.modules.admin.users.updateUser(user.id, { emailVerified: true }, { id: null });
    const chat = newChat();
    await linkTelegram(t, bot, user, chat);
    await t.platform.outbox.drain();
    assert.deepEqual(sentTo(chat), ['Telegram linked']);
    await t.database.db.execute(sql`DELETE FROM outbox`);

    bot.blockChat(chat);
    const test = () => t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: user.headers });
    assert.deepEqual((await test()).json(), { queued: 2 });
    await t.platform.outbox.drain();
    const rows = await t.database.rows<{ status: string; result: string; attempts: number }>(
      sql`SELECT status, result, attempts FROM outbox WHERE kind = 'notify.send'`,
    );
    assert.deepEqual(rows, [
      {
        status: 'done',
        result:
          'not delivered: telegram answered HTTP 403: Forbidden: bot was blocked by the user; the chat is no longer linked',
        attempts: 1,
      },
    ]);
    assert.deepEqual(await telegramChannels(t, user), [{ type: 'telegram', chat_id: chat, linked: false }]);
    assert.deepEqual((await test()).json(), { queued: 1 }, 'mail only');

    // Writing to the bot again (its link's Start) unblocks it and links the chat again.
    await linkTelegram(t, bot, user, chat);
    await t.platform.outbox.drain();
    assert.deepEqual(sentTo(chat), ['Telegram linked', 'Telegram linked']);
  });

  it('unlinks a chat Telegram no longer knows (400 chat not found), and only that one', async () => {
    const user = await signIn(t.app, t.database);
    const [gone, kept] = [newChat(), newChat()];
    await linkTelegram(t, bot, user, gone);
    await linkTelegram(t, bot, user, kept);
    await t.platform.outbox.drain();
    await t.database.db.execute(sql`DELETE FROM outbox`);
    bot.respondNext({ status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } });
    await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: user.headers });
    await t.platform.outbox.drain();
    assert.deepEqual(await telegramChannels(t, user), [
      { type: 'telegram', chat_id: gone, linked: false },
      { type: 'telegram', chat_id: kept, linked: true },
    ]);
    assert.deepEqual(sentTo(kept).at(-1), 'Test notification');
  });
});
