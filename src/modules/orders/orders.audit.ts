// The orders module's audited changes: an order placed, each move of its status, a cancel asked for.
// Declared once here; src/declarations.ts gathers every module's list into the database's CHECK.
import { auditWriter } from '../../platform/audit.ts';

export const ORDERS_AUDIT_ACTIONS = ['order.place', 'order.transition', 'order.cancel'] as const;

export const { audit, auditAll, auditRows } = auditWriter(ORDERS_AUDIT_ACTIONS);
