// What the signals module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as signalsTables from './signals.tables.ts';
import { SIGNALS_AUDIT_ACTIONS } from './signals.audit.ts';
import { SIGNALS_EVENTS } from './signals.events.ts';
import { pruneSignalAlertsJob } from './prune-signal-alerts.job.ts';
import { settleSignalAlertsJob } from './settle-signal-alerts.job.ts';

export const SIGNALS_MODULE = defineModule({
  name: 'signals',
  tables: [signalsTables],
  auditActions: SIGNALS_AUDIT_ACTIONS,
  events: SIGNALS_EVENTS,
  jobs: [pruneSignalAlertsJob, settleSignalAlertsJob],
});
