// Tables of the portfolio module: closed candles it has valued history with, kept so that asking
// for the same window again asks the venue nothing (docs/decisions/154). A closed candle never changes.
import { integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.ts';
import type { StoredLedger } from './ledger-state.domain.ts';

export const portfolioCandles = pgTable(
  'portfolio_candles',
  {
    /** Venue symbol, e.g. BTCUSDT. */
    symbol: text('symbol').notNull(),
    interval: text('interval').notNull(),
    openTime: timestamp('open_time', { withTimezone: true, mode: 'date' }).notNull(),
    close: numeric('close', { precision: 38, scale: 18 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.symbol, t.interval, t.openTime] })],
);

/**
 * Each user's ledger per report quote, kept between requests (docs/decisions/156): the open lots,
 * realized results, fees and net deposits, and what they were built from, so that a summary applies
 * only the trades stored since instead of replaying them all.
 */
export const portfolioLedgers = pgTable(
  'portfolio_ledgers',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    quote: text('quote').notNull(),
    state: jsonb('state').$type<StoredLedger>().notNull(),
    trades: integer('trades').notNull(),
    transfers: integer('transfers').notNull(),
    watermark: timestamp('watermark', { withTimezone: true, mode: 'date' }),
    /** How many of the trades applied were stored within the commit margin before the watermark. */
    marginCount: integer('margin_count').notNull().default(0),
    lastEventAt: timestamp('last_event_at', { withTimezone: true, mode: 'date' }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.quote] })],
);
