// What the users module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as passkeysTables from './passkeys.tables.ts';
import * as usersTables from './users.tables.ts';
import { BILLING_AUDIT_ACTIONS } from './users.audit.ts';
import { cleanupDeviceSessionsJob } from './cleanup-device-sessions.job.ts';
import { cleanupExpiredTokensJob } from './cleanup-expired-tokens.job.ts';
import { USER_COUNTS, USER_DAY_COUNTS, DEVICE_SESSION_EXPIRY_DAYS, USER_GRACE_PERIODS } from './users.figures.ts';

export const USERS_MODULE = defineModule({
  name: 'users',
  tables: [passkeysTables, usersTables],
  auditActions: BILLING_AUDIT_ACTIONS,
  jobs: [cleanupDeviceSessionsJob, cleanupExpiredTokensJob],
  figures: [USER_COUNTS, USER_DAY_COUNTS, DEVICE_SESSION_EXPIRY_DAYS, USER_GRACE_PERIODS],
  routines: ['users.routines.sql'],
});
