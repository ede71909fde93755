// The one list of the modules' declarations (each module's `<module>.module.ts`, decision 230), beside
// the module list of app.ts, and every list derived from them: the audit actions, the outbox kinds, the
// stream events, the jobs, the kept figures and the routines. It imports no module's runtime code, so
// drizzle-kit, the scripts and the CLI read it without a Platform. A module adds a job, an event or an
// audit action in its own files; nothing here names one.
//
// The list's order is the order of the lists derived from it as the API and the CLI show them: the jobs
// in health, the dashboard and the OpenAPI document, the events in the stream's schema, the kept figures
// in db:reconcile's report. The modules contributing none of them come first, by name.
import { ADMIN_MODULE } from './modules/admin/admin.module.ts';
import { AUTH_MODULE } from './modules/auth/auth.module.ts';
import { COMMAND_CENTER_MODULE } from './modules/command-center/command-center.module.ts';
import { CONSOLE_MODULE } from './modules/console/console.module.ts';
import { DASHBOARD_MODULE } from './modules/dashboard/dashboard.module.ts';
import { EXCHANGE_MODULE } from './modules/exchange/exchange.module.ts';
import { JOBS_MODULE } from './modules/jobs/jobs.module.ts';
import { MARKET_MODULE } from './modules/market/market.module.ts';
import { NOTIFICATIONS_MODULE } from './modules/notifications/notifications.module.ts';
import { ORDERS_MODULE } from './modules/orders/orders.module.ts';
import { PAPER_MODULE } from './modules/paper/paper.module.ts';
import { PORTFOLIO_MODULE } from './modules/portfolio/portfolio.module.ts';
import { PROVIDER_KEYS_MODULE } from './modules/provider-keys/provider-keys.module.ts';
import { RAG_SETTINGS_MODULE } from './modules/rag-settings/rag-settings.module.ts';
import { SIGNALS_MODULE } from './modules/signals/signals.module.ts';
import { STRATEGIES_MODULE } from './modules/strategies/strategies.module.ts';
import { STREAMS_MODULE } from './modules/streams/streams.module.ts';
import { TRACKER_MODULE } from './modules/tracker/tracker.module.ts';
import { TRADING_MODULE } from './modules/trading/trading.module.ts';
import { USERS_MODULE } from './modules/users/users.module.ts';
import { WEBHOOKS_MODULE } from './modules/webhooks/webhooks.module.ts';
import { gather, type DeclaredOf, type DeclaredSets } from './platform/module.ts';
import { checkStreamEvents } from './platform/stream-events.ts';

export const MODULE_DECLARATIONS = [
  AUTH_MODULE,
  CONSOLE_MODULE,
  DASHBOARD_MODULE,
  MARKET_MODULE,
  NOTIFICATIONS_MODULE,
  PAPER_MODULE,
  PORTFOLIO_MODULE,
  RAG_SETTINGS_MODULE,
  TRACKER_MODULE,
  PROVIDER_KEYS_MODULE,
  ADMIN_MODULE,
  USERS_MODULE,
  STRATEGIES_MODULE,
  EXCHANGE_MODULE,
  JOBS_MODULE,
  SIGNALS_MODULE,
  TRADING_MODULE,
  WEBHOOKS_MODULE,
  STREAMS_MODULE,
  ORDERS_MODULE,
  COMMAND_CENTER_MODULE,
] as const;
type Declarations = typeof MODULE_DECLARATIONS;

/** Every audit action of every module: the values `audit_log.action` may hold. */
export const AUDIT_ACTIONS: readonly DeclaredOf<Declarations, 'auditActions'>[] = gather(
  MODULE_DECLARATIONS,
  'auditActions',
);

/** Every outbox kind of every module: the handlers the worker may claim a row for. */
export const OUTBOX_KINDS: readonly DeclaredOf<Declarations, 'outboxKinds'>[] = gather(
  MODULE_DECLARATIONS,
  'outboxKinds',
);

/** Every account-stream event, in the order the OpenAPI document lists them; a type or a title declared twice is refused. */
export const STREAM_EVENTS: readonly DeclaredOf<Declarations, 'events'>[] = gather(
  MODULE_DECLARATIONS,
  'events',
  (event) => event.type,
);
checkStreamEvents(STREAM_EVENTS);
export type StreamEvents = typeof STREAM_EVENTS;
export const STREAM_EVENT_TYPES: readonly StreamEvents[number]['type'][] = STREAM_EVENTS.map((event) => event.type);

/** Every job's definition, in the order health, the dashboard and the OpenAPI document list them. */
export const JOB_DEFINITIONS = gather(MODULE_DECLARATIONS, 'jobs', (job) => job.name);
export type JobName = DeclaredOf<Declarations, 'jobs'>['name'];
export const JOB_NAMES: readonly JobName[] = JOB_DEFINITIONS.map((job) => job.name);

/** Every table of figures the database keeps as rows are written (db:reconcile checks them). */
export const DERIVED_FIGURES = gather(MODULE_DECLARATIONS, 'figures', (figures) => figures.table);

/** The declared values the tables' CHECKs hold. */
export const DECLARED_SETS: DeclaredSets = {
  auditActions: AUDIT_ACTIONS,
  outboxKinds: OUTBOX_KINDS,
  eventTypes: STREAM_EVENT_TYPES,
  jobNames: JOB_NAMES,
};
