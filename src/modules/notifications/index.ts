import type { Platform } from '../../platform/platform.ts';
import { createRecordOnlyChatChannel, createWebhookChatChannel } from './adapters/chat-channel.ts';
import { createRecordOnlyMailer, createSmtpMailer } from './adapters/mailer.ts';
import { createTelegramChannel } from './adapters/telegram.ts';
import { createTelegramUpdates } from './adapters/telegram-updates.ts';
import { createUserWebhookSender } from './adapters/user-webhook.ts';
import { createMessages } from './messages.ts';
import { createNoticesService } from './notices.service.ts';
import type { NotificationsDeps } from './notifications.deps.ts';
import { CHAT_KIND, MAIL_KIND, NOTIFY_KIND } from './notifications.outbox.ts';
import { createNotificationsRepository } from './notifications.repository.ts';
import { createNotificationsService } from './notifications.service.ts';
import {
  createPreferencesRepository,
  PREFERENCES_OF_STORED_EVENT,
  storedEventPreferences,
} from './preferences.repository.ts';
import { createPreferencesService } from './preferences.service.ts';
import { preferencesRoutes } from './routes/preferences.routes.ts';
import { createTelegramLinkRepository } from './telegram-link.repository.ts';
import { createTelegramLinkService } from './telegram-link.service.ts';

export type { ChatMessage, MailMessage } from './messages.ts';
export type { AccountEvent } from './notifications.deps.ts';

/** How long one getUpdates waits for a message to the bot. */
const TELEGRAM_POLL_TIMEOUT_S = 30;

/**
 * Registers the outbox handlers of `chat.post`, `mail.send` and `notify.send`; create it before the
 * outbox worker starts. Other modules queue messages through `messages`; users choose their own
 * channels and events (`/api/notifications/...`), and the account events they chose are sent to them.
 */
export function createNotificationsModule(platform: Platform, deps: NotificationsDeps) {
  const { config, database, outbox, secretBox, cache, clock, logger } = platform;

  // The one place the channels are chosen.
  const chat = config.chat.webhookUrl
    ? createWebhookChatChannel({
        url: config.chat.webhookUrl,
        format: config.chat.format,
        timeoutMs: config.chat.timeoutMs,
        fetch: platform.fetch,
        clock,
      })
    : createRecordOnlyChatChannel(config.chat.format);
  const mailer = config.mail.smtpUrl
    ? createSmtpMailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from })
    : createRecordOnlyMailer();
  const telegram = createTelegramChannel({
    token: config.notify.telegramBotToken,
    apiUrl: config.notify.telegramApiUrl,
    timeoutMs: config.notify.timeoutMs,
    fetch: platform.fetch,
  });
  const webhooks = createUserWebhookSender({
    lookup: platform.lookup,
    allowPrivate: config.notify.allowPrivateUrls,
    timeoutMs: config.notify.timeoutMs,
    clock,
  });

  const repo = createNotificationsRepository(database.db);
  const messages = createMessages(secretBox, repo);
  const service = createNotificationsService({ chat, mailer, database, repo, secretBox });
  const preferences = createPreferencesService({
    db: database.db,
    repo: createPreferencesRepository(database.db),
    secretBox,
    telegram,
    webhooks,
    clock,
  });
  const notices = createNoticesService({
    db: database.db,
    preferences,
    accounts: deps.accounts,
    mail: messages,
    telegram,
    webhooks,
    secretBox,
    cache,
    clock,
    logger,
  });
  const { telegramBotToken: botToken, telegramBotUsername } = config.notify;
  const linkRepo = createTelegramLinkRepository(database);
  const telegramLinks = createTelegramLinkService({
    db: database.db,
    repo: linkRepo,
    preferences,
    botUsername: botToken ? telegramBotUsername : undefined,
    telegram,
    clock,
    logger,
  });
  // What users write to the bot, read by one instance of the deployment (decision 860).
  const updates =
    botToken && telegramBotUsername
      ? createTelegramUpdates({
          token: botToken,
          apiUrl: config.notify.telegramApiUrl,
          fetch: platform.fetch,
          pollTimeoutS: TELEGRAM_POLL_TIMEOUT_S,
          onUpdate: async (update, poll, signal) => void (await telegramLinks.onUpdate(update, poll, signal)),
          whileHolding: linkRepo.whileHolding,
          logger,
        })
      : undefined;
  outbox.register(CHAT_KIND, service.deliverChat);
  outbox.register(MAIL_KIND, service.deliverMail);
  outbox.register(NOTIFY_KIND, notices.deliver);
  // The user's preferences read by the events' insert beside each event, not by a statement per notice (decision 870).
  deps.accountEvents.observe(
    (event, read) => void notices.onEvent(event, { stored: storedEventPreferences(read) }),
    PREFERENCES_OF_STORED_EVENT,
  );

  return {
    name: 'notifications',
    routes: preferencesRoutes({ preferences, notices, telegramLinks, guards: deps.guards }),
    /** Reads the bot's updates (the links' Starts) while the server listens, when the bot is configured. */
    hooks: {
      listening: () => updates?.start(),
      closed: async () => {
        await updates?.stop();
      },
    },
    /** Chat posts and mails, queued in the caller's transaction; and the mail suppression list. */
    messages,
    /** Forgets an account's channels and events when a provider's first link claims it (decision 790). */
    resetOnClaim: preferences.resetOnClaim,
    /** For the dashboard: per channel, whether it is configured, what waits, what died, last success and error. */
    status: service.status,
    /** For the dashboard: connects to the SMTP relay and greets it, sending nothing; null without SMTP_URL. */
    checkMailServer: () => mailer.verify(),
  };
}

export type NotificationsModule = ReturnType<typeof createNotificationsModule>;

/** What the module contributes to the app and the database (decision 230). */
export { NOTIFICATIONS_MODULE } from './notifications.module.ts';
