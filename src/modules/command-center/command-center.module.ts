// What the command-center module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as commandCenterTables from './command-center.tables.ts';
import { COMMAND_CENTER_AUDIT_ACTIONS } from './command-center.audit.ts';
import {
  MARKET_INTEL_COUNTS,
  TASK_ASSIGNEE_DAY_COUNTS,
  TASK_COUNTS,
  TASK_DAY_COUNTS,
} from './command-center.figures.ts';

export const COMMAND_CENTER_MODULE = defineModule({
  name: 'command-center',
  tables: [commandCenterTables],
  auditActions: COMMAND_CENTER_AUDIT_ACTIONS,
  figures: [MARKET_INTEL_COUNTS, TASK_COUNTS, TASK_DAY_COUNTS, TASK_ASSIGNEE_DAY_COUNTS],
  routines: ['command-center.routines.sql'],
});
