// Tables private to the notifications module: the addresses mail is no longer sent to, and each
// user's own notification preferences.
import { jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.ts';
import type { NotifyEvent, StoredChannel } from './preferences.domain.ts';

/** Addresses that bounced or complained; no mail is sent to them. */
export const emailSuppressions = pgTable('email_suppressions', {
  email: text('email').primaryKey(),
  reason: text('reason').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Each user's own notification channels and the events they want; no row: the defaults (mail, the
 * events of DEFAULT_EVENTS). Telegram chats and webhook URLs are sealed in `channels`, bound to the row.
 */
export const notificationPreferences = pgTable('notification_preferences', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  channels: jsonb('channels').$type<StoredChannel[]>().notNull(),
  events: text('events').array().$type<NotifyEvent[]>().notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
