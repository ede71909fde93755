// The trading module's tables (docs/decisions/218, 219): each user's own limits, each user's halt, and
// the platform's row (its caps on every user's limits and its halt). Decimals are `numeric`, written
// in plain notation; NULL is "no limit".
import { sql } from 'drizzle-orm';
import { boolean, check, integer, numeric, pgTable, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.ts';
import { users } from '../users/users.tables.ts';
import { HALT_CAUSES, type HaltCause } from './halts.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const limitColumns = () => ({
  maxOrderNotional: numeric('max_order_notional'),
  maxOpenOrders: integer('max_open_orders'),
  maxOrdersPerMinute: integer('max_orders_per_minute'),
  priceBandPercent: numeric('price_band_percent'),
  dailyLossLimit: numeric('daily_loss_limit'),
});

/** A user's own limits, from the user's first change; until then the platform's defaults are theirs. */
export const tradingLimits = pgTable('trading_limits', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  ...limitColumns(),
  updatedAt: at('updated_at').notNull(),
});

/** A user whose trading is halted: one row while it holds (a daily-loss halt also ends at `until`). */
export const tradingHalts = pgTable(
  'trading_halts',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    cause: text('cause').$type<HaltCause>().notNull(),
    reason: text('reason').notNull(),
    haltedAt: at('halted_at').notNull(),
    until: at('until'),
  },
  (t) => [check('trading_halts_cause_check', oneOf(t.cause, HALT_CAUSES))],
);

/** The platform's single row (id 1), absent until an admin first caps a limit or halts. */
export const tradingPlatform = pgTable(
  'trading_platform',
  {
    id: smallint('id').primaryKey().default(1),
    /** Caps: no user's limit in force is above these. */
    ...limitColumns(),
    halted: boolean('halted').notNull().default(false),
    haltReason: text('halt_reason'),
    haltedAt: at('halted_at'),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [check('trading_platform_single_row', sql`${t.id} = 1`)],
);
