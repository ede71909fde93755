// The provider keys module's audited changes.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const PROVIDER_KEYS_AUDIT_ACTIONS = [
  'provider_key.create',
  'provider_key.delete',
  'provider_key.reencrypt',
  'provider_key.rotate',
  'provider_key.test',
  'provider_key.update',
] as const;

export const { audit } = auditWriter(PROVIDER_KEYS_AUDIT_ACTIONS);
