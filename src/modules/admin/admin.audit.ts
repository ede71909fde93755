// The admin module's audited changes: what an administrator does to accounts and platform limits.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';
import { BILLING_AUDIT_ACTIONS } from '../users/index.ts';

export const ADMIN_AUDIT_ACTIONS = [
  'admin.platform_limits.update',
  'admin.user.2fa_reset',
  'admin.user.activate',
  'admin.user.delete',
  'admin.user.password_reset',
  'admin.user.password_set',
  'admin.user.suspend',
  'admin.user.update',
  'admin.users.export',
] as const;

/** Its writer: its own actions, and the billing changes of an account it records. */
export const { audit, auditFrom } = auditWriter(ADMIN_AUDIT_ACTIONS, BILLING_AUDIT_ACTIONS);
