// The RAG settings module's audited change.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const RAG_SETTINGS_AUDIT_ACTIONS = ['rag_settings.update'] as const;

export const { audit } = auditWriter(RAG_SETTINGS_AUDIT_ACTIONS);
