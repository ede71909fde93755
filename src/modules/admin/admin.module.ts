// What the admin module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as adminTables from './admin.tables.ts';
import { ADMIN_AUDIT_ACTIONS } from './admin.audit.ts';
import { cleanupGracePeriodsJob } from './cleanup-grace-periods.job.ts';

export const ADMIN_MODULE = defineModule({
  name: 'admin',
  tables: [adminTables],
  auditActions: ADMIN_AUDIT_ACTIONS,
  jobs: [cleanupGracePeriodsJob],
});
