// The exchange module's figures the database keeps: declared here, their triggers, recomputation and
// first fill generated into the routines migration by db:generate (decision 240).
import { count, keptFigures, max, min, sum } from '../../platform/db/kept-figures.ts';

/** A user's trades per venue, pair and UTC day: counts by side and status, Σ total and fee, first and last (decision 124). */
export const TRADE_DAYS = keptFigures({
  table: 'exchange_trade_days',
  source: 'exchange_trades',
  key: {
    user_id: 'user_id',
    exchange: 'exchange',
    symbol: 'symbol',
    day: "(trade_timestamp AT TIME ZONE 'UTC')::date",
  },
  figures: {
    total_trades: count(),
    buy_count: count("side = 'buy'"),
    sell_count: count("side = 'sell'"),
    synced_count: count("sync_status = 'synced'"),
    failed_count: count("sync_status = 'failed'"),
    total_volume: sum('total'),
    total_fees: sum('fee'),
    first_trade: min('trade_timestamp'),
    last_trade: max('trade_timestamp'),
  },
  // A day's trades by the trade-history index (user, venue, pair, time), not by its day expression.
  rowsOfKey:
    'user_id = k.user_id AND exchange = k.exchange AND symbol = k.symbol ' +
    "AND trade_timestamp >= k.day::timestamp AT TIME ZONE 'UTC' " +
    "AND trade_timestamp < (k.day + 1)::timestamp AT TIME ZONE 'UTC'",
});

/** Each user's trades, for the admin list's trading figures (decision 185). */
export const TRADE_COUNTS = keptFigures({
  table: 'exchange_trade_counts',
  source: 'exchange_trades',
  key: { user_id: 'user_id' },
  figures: { total_trades: count() },
});
