// What the trading module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as tradingTables from './trading.tables.ts';
import { TRADING_AUDIT_ACTIONS } from './trading.audit.ts';
import { TRADING_EVENTS } from './trading.events.ts';

export const TRADING_MODULE = defineModule({
  name: 'trading',
  tables: [tradingTables],
  auditActions: TRADING_AUDIT_ACTIONS,
  events: TRADING_EVENTS,
});
