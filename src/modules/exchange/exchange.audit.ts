// The exchange module's audited changes: credentials, their checks and re-encryption, and account syncs.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const EXCHANGE_AUDIT_ACTIONS = [
  'exchange.balance.sync',
  'exchange.credential.create',
  'exchange.credential.delete',
  'exchange.credential.update',
  'exchange.credential.validate',
  'exchange.credentials.reencrypt',
  'exchange.feetoken_burn.update',
  'exchange.trades.sync',
  'exchange.transfers.sync',
] as const;

export const { audit } = auditWriter(EXCHANGE_AUDIT_ACTIONS);
