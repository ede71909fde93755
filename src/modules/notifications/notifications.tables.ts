// Tables private to the notifications module: the addresses mail is no longer sent to.
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Addresses that bounced or complained; no mail is sent to them. */
export const emailSuppressions = pgTable('email_suppressions', {
  email: text('email').primaryKey(),
  reason: text('reason').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
