// What the strategies module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as strategiesTables from './strategies.tables.ts';
import { STRATEGIES_AUDIT_ACTIONS } from './strategies.audit.ts';
import { STRATEGY_STATUS_COUNTS } from './strategies.figures.ts';
import { strategyAutopilotJob } from './strategy-autopilot.job.ts';

export const STRATEGIES_MODULE = defineModule({
  name: 'strategies',
  tables: [strategiesTables],
  auditActions: STRATEGIES_AUDIT_ACTIONS,
  jobs: [strategyAutopilotJob],
  figures: [STRATEGY_STATUS_COUNTS],
  routines: ['strategies.routines.sql'],
});
