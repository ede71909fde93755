// Tables private to the notifications module: the addresses mail is no longer sent to, each user's own
// notification preferences, and the codes that link a Telegram chat to its user.
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

/**
 * The one live code of each user that links a Telegram chat (decision 860): stored as its SHA-256 only,
 * short-lived, gone once used; asking again replaces it.
 */
export const telegramLinkCodes = pgTable('telegram_link_codes', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  codeHash: text('code_hash').notNull().unique('telegram_link_codes_code_hash_key'),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});
