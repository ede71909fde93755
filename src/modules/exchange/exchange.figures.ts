// The exchange module's figures the database keeps (exchange.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const TRADE_DAYS: DerivedFigures = {
  table: 'exchange_trade_days',
  key: ['user_id', 'exchange', 'symbol', 'day'],
  recomputed: 'exchange_trade_days_recomputed()',
  sources: ['exchange_trades'],
};
