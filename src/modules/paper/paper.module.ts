// What the paper module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as paperTables from './paper.tables.ts';
import { PAPER_AUDIT_ACTIONS } from './paper.audit.ts';

export const PAPER_MODULE = defineModule({
  name: 'paper',
  tables: [paperTables],
  auditActions: PAPER_AUDIT_ACTIONS,
});
