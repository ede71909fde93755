// The tracker module's audited changes to issues.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const TRACKER_AUDIT_ACTIONS = [
  'tracker.issue.agent_file',
  'tracker.issue.create',
  'tracker.issue.update',
] as const;
export type TrackerAuditAction = (typeof TRACKER_AUDIT_ACTIONS)[number];

export const { audit } = auditWriter(TRACKER_AUDIT_ACTIONS);
