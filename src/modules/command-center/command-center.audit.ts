// The command center's audited changes: tasks, intel and agent activity.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const COMMAND_CENTER_AUDIT_ACTIONS = [
  'command_center.agent_activity.create',
  'command_center.intel.create',
  'command_center.intel.score',
  'command_center.task.comment',
  'command_center.task.create',
  'command_center.task.update',
] as const;

export const { audit, auditFrom } = auditWriter(COMMAND_CENTER_AUDIT_ACTIONS);
