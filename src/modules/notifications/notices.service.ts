// Telling users what happened (docs/decisions/222): an account event another module published becomes a
// notice, queued in the outbox once per channel the user chose (keyed by the event, so it is queued
// once whichever instance sees it), and delivered with retries: mail through the mailer's own kind,
// Telegram and the user's webhook through `notify.send`. Outbox rows carry the message, never the chat
// id or the URL: the sender opens them from the preferences when it sends. Only a Telegram chat linked
// through the bot (decision 860) is written to, and mail goes only to a verified address (decision 840);
// the user's other channels are told all the same.
import type { Logger } from 'pino';
import type { Cache } from '../../platform/cache/cache.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { rateLimited } from '../../platform/http/errors.ts';
import { PermanentFailure, type OutboxHandler } from '../../platform/outbox/outbox.ts';
import { ChatUnreachable, type TelegramChannel } from './adapters/telegram.ts';
import type { UserWebhookSender } from './adapters/user-webhook.ts';
import { parseChatMessage } from './chat/chat-text.ts';
import { toDiscord } from './chat/discord-message.ts';
import { toSlack } from './chat/slack-message.ts';
import type { ChatMessage, createMessages } from './messages.ts';
import { noticeOf, plainText, TEST_MESSAGE } from './notices.domain.ts';
import type { AccountEvent, NotificationsDeps } from './notifications.deps.ts';
import { enqueue, NOTIFY_KIND } from './notifications.outbox.ts';
import { channelSealedAt, DEFAULT_PREFERENCES, type PreferencesService } from './preferences.service.ts';
import type { StoredPreferences } from './preferences.repository.ts';
import type { StoredChannel } from './preferences.domain.ts';

/**
 * Test sends one user may ask for in a minute (decision 791): each queues a message on every channel, to a
 * chat id or an address nobody proved theirs, so an unbounded loop would flood a third party through our
 * bot, webhook sender and mail relay, and fill the outbox that carries every user's notices.
 */
export const TEST_SENDS_PER_MINUTE = 3;
const MINUTE_MS = 60_000;

export function createNoticesService(deps: {
  db: Db;
  preferences: Pick<PreferencesService, 'stored' | 'unlinkTelegram'>;
  accounts: NotificationsDeps['accounts'];
  mail: Pick<ReturnType<typeof createMessages>, 'mail'>;
  telegram: TelegramChannel;
  webhooks: Pick<UserWebhookSender, 'post'>;
  secretBox: Pick<SecretBox, 'open'>;
  cache: Pick<Cache, 'incr'>;
  clock: Clock;
  logger: Logger;
}) {
  const { db, preferences, accounts, mail, telegram, webhooks, secretBox, cache, clock, logger } = deps;

  /** Queues the message on each channel; `key` makes each queueing happen once. Answers how many were queued. */
  async function queue(userId: string, channels: StoredChannel[], message: ChatMessage, key: string): Promise<number> {
    const now = clock.now();
    let queued = 0;
    for (const channel of channels) {
      // A chat nobody proved theirs (typed in before linking existed) is told nothing (decision 860).
      if (channel.type === 'telegram' && !channel.proven) continue;
      const dedupeKey = `notify:${key}:${channel.id}`;
      if (channel.type === 'email') {
        // Only to an address proven the user's (decision 840): open sign-up takes any address, and whoever
        // registered someone else's would have us mail them at the pace of their own actions.
        const user = await accounts.findById(userId);
        if (!user?.emailVerified) continue;
        const sent = await mail.mail(
          db,
          { to: user.email, subject: message.title, text: plainText(message) },
          now,
          dedupeKey,
        );
        if (sent.queued) queued++;
        continue;
      }
      const id = await enqueue(
        { kind: NOTIFY_KIND, payload: { userId, channelId: channel.id, message: { ...message } }, dedupeKey },
        now,
        db,
      );
      if (id) queued++;
    }
    return queued;
  }

  const deliver: OutboxHandler = async (payload, _row, signal) => {
    const { userId, channelId } = payload;
    const message = parseChatMessage((payload.message ?? {}) as Record<string, unknown>);
    if (typeof userId !== 'string' || typeof channelId !== 'string' || !message)
      throw new PermanentFailure('malformed notification: userId, channelId and message are required');
    const channel = (await preferences.stored(userId)).channels.find((c) => c.id === channelId);
    if (!channel || channel.type === 'email') return 'skipped: the channel was removed';
    if (channel.type === 'telegram' && !channel.proven) return 'skipped: the Telegram chat is not linked';
    const target = secretBox.open(channel.sealed, channelSealedAt(userId, channel.id));
    if (channel.type === 'telegram') {
      try {
        return await telegram.send(target, plainText(message), signal);
      } catch (error) {
        if (!(error instanceof ChatUnreachable)) throw error;
        // The user blocked the bot (or the chat is gone): nothing more is sent there until they link it
        // again, and this notice is finished, not retried (decision 861).
        await preferences.unlinkTelegram(userId, channelId);
        logger.info({ reason: error.message }, 'a telegram chat was unlinked: telegram refuses its messages');
        return `not delivered: ${error.message}; the chat is no longer linked`;
      }
    }
    const body = channel.format === 'discord' ? toDiscord(message, clock.now()) : toSlack(message);
    return webhooks.post(target, body, signal);
  };

  return {
    deliver,

    /**
     * An account event: queued for the user's channels when it is one of the events they chose. `read` is
     * what the events' insert read of the user's preferences (decision 870): their row, or null when they
     * keep the defaults; without it, they are read here. Never throws.
     */
    async onEvent(event: AccountEvent, read?: { stored: StoredPreferences | undefined }): Promise<void> {
      const notice = noticeOf(event.type, event.data);
      if (!notice || !event.userId) return;
      try {
        const chosen = read ? (read.stored ?? DEFAULT_PREFERENCES) : await preferences.stored(event.userId);
        if (!chosen.events.includes(notice.event)) return;
        await queue(event.userId, chosen.channels, notice.message, notice.key ?? `event:${event.id}`);
      } catch (error) {
        logger.error({ err: error, eventType: event.type }, 'a notification could not be queued');
      }
    },

    /** One test notification on each of the user's channels; answers how many were queued. */
    async test(userId: string): Promise<number> {
      // Counted on every instance (Redis when set), the window restarting at each ask, so that no minute
      // holds more than the bound; a cache that fails lets the send through.
      const counted = await cache
        .incr(`notify:test:${userId}`, MINUTE_MS, TEST_SENDS_PER_MINUTE, true)
        .catch(() => undefined);
      if (counted && counted.count > TEST_SENDS_PER_MINUTE) {
        const seconds = counted.resetMs / 1000;
        throw rateLimited(
          seconds,
          `At most ${TEST_SENDS_PER_MINUTE} test notifications a minute; try again in ${Math.max(1, Math.ceil(seconds))} s`,
        );
      }
      const chosen = await preferences.stored(userId);
      return queue(userId, chosen.channels, TEST_MESSAGE, `test:${clock.now().getTime()}`);
    },
  };
}

export type NoticesService = ReturnType<typeof createNoticesService>;
