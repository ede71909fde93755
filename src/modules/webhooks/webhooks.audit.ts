// What the inbound webhooks audit of their own: a mail provider's suppression of an address (the
// payments hook's billing changes are the users module's actions). Declared once here;
// src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';
import { BILLING_AUDIT_ACTIONS } from '../users/index.ts';

export const WEBHOOKS_AUDIT_ACTIONS = ['mail.suppression.add'] as const;
export type WebhooksAuditAction = (typeof WEBHOOKS_AUDIT_ACTIONS)[number];

/** Its writer: its own actions, and the billing changes of an account it records. */
export const { audit } = auditWriter(WEBHOOKS_AUDIT_ACTIONS, BILLING_AUDIT_ACTIONS);
