// What the tracker module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as trackerTables from './tracker.tables.ts';
import { TRACKER_AUDIT_ACTIONS } from './tracker.audit.ts';
import { settleIssueIntentsJob } from './settle-issue-intents.job.ts';

export const TRACKER_MODULE = defineModule({
  name: 'tracker',
  tables: [trackerTables],
  auditActions: TRACKER_AUDIT_ACTIONS,
  jobs: [settleIssueIntentsJob],
});
