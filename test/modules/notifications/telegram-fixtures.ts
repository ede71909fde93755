// Linking a Telegram chat as a user does (decision 860): ask for the link, press Start in the chat (the
// fake hands the bot `/start <code>` from it), and wait until the preferences show the chat linked.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { channelSealedAt } from '../../../src/modules/notifications/preferences.service.ts';
import type { TelegramBot } from '../../fakes/telegram.ts';
import type { TestApp, TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';

export const BOT_USERNAME = 'trading_alerts_bot';

/** The env of an app with the fake bot, its username set so that chats can be linked. */
export const botEnv = (bot: TelegramBot) => ({
  TELEGRAM_BOT_TOKEN: bot.token,
  TELEGRAM_API_URL: bot.url,
  TELEGRAM_BOT_USERNAME: BOT_USERNAME,
});

/** Starts reading the bot's updates, as the server does once it listens (inject() never does). */
export const startUpdates = (t: TestApp) => t.modules.notifications.hooks.listening();

export async function askLink(t: TestApp, user: TestUser): Promise<{ code: string; url: string; expires_at: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/notifications/telegram/link',
    headers: user.headers,
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function telegramChannels(t: TestApp, user: TestUser) {
  const response = await t.app.inject({ method: 'GET', url: '/api/notifications/preferences', headers: user.headers });
  assert.equal(response.statusCode, 200, response.body);
  return response
    .json<{ channels: { type: string; chat_id?: string; linked?: boolean }[] }>()
    .channels.filter((c) => c.type === 'telegram');
}

/** Every update sent so far has been read and confirmed by the poller. */
export const allRead = (bot: TelegramBot) => waitFor(() => bot.pending() === 0, 'the bot read its updates');

/** Links `chat` to `user` through the bot, as a user does; the poller must be running. */
export async function linkTelegram(t: TestApp, bot: TelegramBot, user: TestUser, chat: string): Promise<void> {
  const { code } = await askLink(t, user);
  bot.sendUpdate(chat, `/start ${code}`);
  await waitFor(
    async () => (await telegramChannels(t, user)).some((c) => c.chat_id === chat && c.linked),
    'the chat linked',
  );
}

/**
 * A chat id typed in before linking existed, as decision 222 stored it: sealed, without proof, beside the
 * mail channel, the user told of trading halts. The chat has started the bot. Answers the channel's id.
 */
export async function storeTypedChat(t: TestApp, bot: TelegramBot, user: TestUser, chat: string): Promise<string> {
  bot.startChat(chat);
  const id = randomUUID();
  const sealed = t.platform.secretBox.seal(chat, channelSealedAt(user.id, id));
  const channels = JSON.stringify([
    { id: 'email', type: 'email' },
    { id, type: 'telegram', sealed },
  ]);
  await t.database.db.execute(
    sql`INSERT INTO notification_preferences (user_id, channels, events, updated_at)
        VALUES (${user.id}, ${channels}::jsonb, ARRAY['trading.halted'], now())`,
  );
  return id;
}
