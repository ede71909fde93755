// The paper engine's audited change: a user resetting their paper account.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const PAPER_AUDIT_ACTIONS = ['paper.account.reset'] as const;

export const { audit } = auditWriter(PAPER_AUDIT_ACTIONS);
