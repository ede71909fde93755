// The outbox kinds this module enqueues and handles: a chat post, a mail, a user's own notification. Declared once here;
// src/declarations.ts gathers every module's kinds into the database's CHECK.
import { outboxWriter } from '../../platform/outbox/outbox.ts';

export const NOTIFICATIONS_OUTBOX_KINDS = ['chat.post', 'mail.send', 'notify.send'] as const;
type NotificationsOutboxKind = (typeof NOTIFICATIONS_OUTBOX_KINDS)[number];

export const CHAT_KIND = 'chat.post' satisfies NotificationsOutboxKind;
export const MAIL_KIND = 'mail.send' satisfies NotificationsOutboxKind;
/** A user's own notification on one of their channels (Telegram or their webhook). */
export const NOTIFY_KIND = 'notify.send' satisfies NotificationsOutboxKind;

export const { enqueue } = outboxWriter(NOTIFICATIONS_OUTBOX_KINDS);
