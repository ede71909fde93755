// The outbox kinds this module enqueues and handles: a chat post and a mail. Declared once here;
// src/shared-tables.ts gathers every module's kinds into the database's CHECK.
import { outboxWriter } from '../../platform/outbox/outbox.ts';

export const NOTIFICATIONS_OUTBOX_KINDS = ['chat.post', 'mail.send'] as const;
type NotificationsOutboxKind = (typeof NOTIFICATIONS_OUTBOX_KINDS)[number];

export const CHAT_KIND = 'chat.post' satisfies NotificationsOutboxKind;
export const MAIL_KIND = 'mail.send' satisfies NotificationsOutboxKind;

export const { enqueue } = outboxWriter(NOTIFICATIONS_OUTBOX_KINDS);
