// The strategies module's audited changes: a user creating a strategy, the autopilot promoting one.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const STRATEGIES_AUDIT_ACTIONS = ['strategy.create', 'strategy.promote'] as const;

export const { audit } = auditWriter(STRATEGIES_AUDIT_ACTIONS);
