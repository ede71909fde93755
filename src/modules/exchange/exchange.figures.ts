// The exchange module's figures the database keeps (exchange.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const TRADE_DAYS: DerivedFigures = {
  table: 'exchange_trade_days',
  key: ['user_id', 'exchange', 'symbol', 'day'],
  recomputed: 'exchange_trade_days_recomputed()',
  sources: ['exchange_trades'],
};

export const TRADE_COUNTS: DerivedFigures = {
  table: 'exchange_trade_counts',
  key: ['user_id'],
  recomputed: 'exchange_trade_counts_recomputed()',
  sources: ['exchange_trades'],
};
