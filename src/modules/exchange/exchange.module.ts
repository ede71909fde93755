// What the exchange module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as exchangeTables from './exchange.tables.ts';
import { EXCHANGE_AUDIT_ACTIONS } from './exchange.audit.ts';
import { EXCHANGE_EVENTS } from './exchange.events.ts';
import { syncAccountsJob } from './sync-accounts.job.ts';
import { TRADE_DAYS, TRADE_COUNTS } from './exchange.figures.ts';

export const EXCHANGE_MODULE = defineModule({
  name: 'exchange',
  tables: [exchangeTables],
  auditActions: EXCHANGE_AUDIT_ACTIONS,
  events: EXCHANGE_EVENTS,
  jobs: [syncAccountsJob],
  figures: [TRADE_DAYS, TRADE_COUNTS],
  routines: ['exchange.routines.sql'],
});
