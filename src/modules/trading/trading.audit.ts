// The trading module's audited changes: limits, caps, and every halt and resume (docs/decisions/219).
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const TRADING_AUDIT_ACTIONS = [
  'trading.limits.update',
  'trading.limit_caps.update',
  'trading.halt.start',
  'trading.halt.daily_loss',
  'trading.halt.end',
  'trading.platform_halt.start',
  'trading.platform_halt.end',
] as const;

export const { audit } = auditWriter(TRADING_AUDIT_ACTIONS);
