// Tables of the portfolio module: closed candles it has valued history with, kept so that asking
// for the same window again asks the venue nothing (docs/decisions/154). A closed candle never changes.
import { numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

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
