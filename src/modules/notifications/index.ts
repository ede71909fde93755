import type { Platform } from '../../platform/platform.ts';
import { createRecordOnlyChatChannel, createWebhookChatChannel } from './adapters/chat-channel.ts';
import { createRecordOnlyMailer, createSmtpMailer } from './adapters/mailer.ts';
import { createMessages } from './messages.ts';
import { CHAT_KIND, MAIL_KIND } from './notifications.outbox.ts';
import { createNotificationsRepository } from './notifications.repository.ts';
import { createNotificationsService } from './notifications.service.ts';

export type { ChatMessage, MailMessage } from './messages.ts';

/**
 * Registers the outbox handlers of `chat.post` and `mail.send`; create it before the outbox worker
 * starts. No HTTP routes: other modules queue messages through `messages`, this module delivers.
 */
export function createNotificationsModule(platform: Platform) {
  const { config, database, outbox, secretBox, clock } = platform;

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

  const repo = createNotificationsRepository(database.db);
  const service = createNotificationsService({ chat, mailer, database, repo, secretBox });
  outbox.register(CHAT_KIND, service.deliverChat);
  outbox.register(MAIL_KIND, service.deliverMail);

  return {
    name: 'notifications',
    /** Chat posts and mails, queued in the caller's transaction; and the mail suppression list. */
    messages: createMessages(secretBox, repo),
    /** For the dashboard: per channel, whether it is configured, what waits, what died, last success and error. */
    status: service.status,
    /** For the dashboard: connects to the SMTP relay and greets it, sending nothing; null without SMTP_URL. */
    checkMailServer: () => mailer.verify(),
  };
}

export type NotificationsModule = ReturnType<typeof createNotificationsModule>;
