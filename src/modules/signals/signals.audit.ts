// The signals module's audited changes: a hook made, its secret replaced, a hook removed.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const SIGNALS_AUDIT_ACTIONS = ['signal_hook.create', 'signal_hook.rotate', 'signal_hook.delete'] as const;

export const { audit } = auditWriter(SIGNALS_AUDIT_ACTIONS);
