// The one place every module's audit actions and outbox kinds are gathered, beside the module list in
// app.ts: the platform owns the audit trail and the outbox but names none of their values, and each
// module declares its own (src/modules/<name>/<name>.audit.ts, <name>.outbox.ts). The two tables are
// built here once more with the gathered lists, for drizzle-kit: their CHECKs in the migrations come
// from these lists. Runtime code uses the platform's objects (src/platform/db/schema.ts); only the
// CHECKs differ, and the database holds those (docs/decisions/179).
import { ADMIN_AUDIT_ACTIONS } from './modules/admin/admin.audit.ts';
import { AUTH_AUDIT_ACTIONS } from './modules/auth/auth.audit.ts';
import { COMMAND_CENTER_AUDIT_ACTIONS } from './modules/command-center/command-center.audit.ts';
import { EXCHANGE_AUDIT_ACTIONS } from './modules/exchange/exchange.audit.ts';
import { ORDERS_AUDIT_ACTIONS } from './modules/orders/orders.audit.ts';
import { NOTIFICATIONS_OUTBOX_KINDS } from './modules/notifications/notifications.outbox.ts';
import { PAPER_AUDIT_ACTIONS } from './modules/paper/paper.audit.ts';
import { PROVIDER_KEYS_AUDIT_ACTIONS } from './modules/provider-keys/provider-keys.audit.ts';
import { SIGNALS_AUDIT_ACTIONS } from './modules/signals/signals.audit.ts';
import { RAG_SETTINGS_AUDIT_ACTIONS } from './modules/rag-settings/rag-settings.audit.ts';
import { STRATEGIES_AUDIT_ACTIONS } from './modules/strategies/strategies.audit.ts';
import { TRACKER_AUDIT_ACTIONS } from './modules/tracker/tracker.audit.ts';
import { TRADING_AUDIT_ACTIONS } from './modules/trading/trading.audit.ts';
import { BILLING_AUDIT_ACTIONS } from './modules/users/users.audit.ts';
import { WEBHOOKS_AUDIT_ACTIONS } from './modules/webhooks/webhooks.audit.ts';
import { auditLogTable, outboxTable } from './platform/db/schema.ts';

/** Every audit action of every module: the values `audit_log.action` may hold. */
export const AUDIT_ACTIONS = [
  ...ADMIN_AUDIT_ACTIONS,
  ...AUTH_AUDIT_ACTIONS,
  ...BILLING_AUDIT_ACTIONS,
  ...COMMAND_CENTER_AUDIT_ACTIONS,
  ...EXCHANGE_AUDIT_ACTIONS,
  ...PAPER_AUDIT_ACTIONS,
  ...PROVIDER_KEYS_AUDIT_ACTIONS,
  ...RAG_SETTINGS_AUDIT_ACTIONS,
  ...SIGNALS_AUDIT_ACTIONS,
  ...STRATEGIES_AUDIT_ACTIONS,
  ...ORDERS_AUDIT_ACTIONS,
  ...TRACKER_AUDIT_ACTIONS,
  ...TRADING_AUDIT_ACTIONS,
  ...WEBHOOKS_AUDIT_ACTIONS,
] as const;

/** Every outbox kind of every module: the handlers the worker may claim a row for. */
export const OUTBOX_KINDS = [...NOTIFICATIONS_OUTBOX_KINDS] as const;

/** The tables as the migrations know them (drizzle.config.ts reads this file). */
export const auditLog = auditLogTable(AUDIT_ACTIONS);
export const outbox = outboxTable(OUTBOX_KINDS);
