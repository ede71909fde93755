// The auth module's audited events: sign-in, sign-out, registration, passwords, the second factor, passkeys and API tokens.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const AUTH_AUDIT_ACTIONS = [
  'auth.2fa.disable',
  'auth.2fa.enable',
  'auth.2fa.recovery_code_used',
  'auth.2fa.reencrypt',
  'auth.2fa.setup',
  'auth.2fa.step_up',
  'auth.2fa_failed',
  'auth.admin_bootstrap',
  'auth.api_token.create',
  'auth.api_token.revoke',
  'auth.email_verified',
  'auth.login',
  'auth.login_failed',
  'auth.login_mfa_required',
  'auth.logout',
  'auth.passkey.clone_suspected',
  'auth.passkey.delete',
  'auth.passkey.register',
  'auth.passkey.rename',
  'auth.passkey_failed',
  'auth.password_change',
  'auth.password_change_failed',
  'auth.refresh_reuse_detected',
  'auth.register',
] as const;

export const { audit } = auditWriter(AUTH_AUDIT_ACTIONS);
