// Tables private to the admin module: user exports waiting to be downloaded and the platform limits.
import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * A CSV produced by the `export` bulk action, downloadable by an admin until it expires. It holds
 * personal data, so it lives only for a day and expired rows are purged when the next one is made.
 */
export const adminExports = pgTable(
  'admin_exports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    createdBy: uuid('created_by'),
    fileName: text('file_name').notNull(),
    rowCount: integer('row_count').notNull(),
    content: text('content').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('admin_exports_expires_idx').on(t.expiresAt)],
);

/** The per-hour platform limits: a single row (id 1); absent until an admin first changes it. */
export const platformLimits = pgTable(
  'platform_limits',
  {
    id: smallint('id').primaryKey().default(1),
    backtestPerHour: integer('backtest_per_hour').notNull(),
    optimizePerHour: integer('optimize_per_hour').notNull(),
    paperTransitionPerHour: integer('paper_transition_per_hour').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedBy: uuid('updated_by'),
  },
  (t) => [check('platform_limits_single_row', sql`${t.id} = 1`)],
);
