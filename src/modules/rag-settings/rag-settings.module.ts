// What the rag-settings module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as ragSettingsTables from './rag-settings.tables.ts';
import { RAG_SETTINGS_AUDIT_ACTIONS } from './rag-settings.audit.ts';

export const RAG_SETTINGS_MODULE = defineModule({
  name: 'rag-settings',
  tables: [ragSettingsTables],
  auditActions: RAG_SETTINGS_AUDIT_ACTIONS,
});
