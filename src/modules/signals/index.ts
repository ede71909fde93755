// The signals module (issue 40, docs/decisions/220): TradingView alert hooks. A user makes hooks; each
// alert posted to one is checked (throttles, secret, form, staleness), claimed once per alert, and its
// order placed through the order placer: the orders module's create use case.
import type { FastifyInstance } from 'fastify';
import { CLIENT_TIMEOUT_MARGIN_MS } from '../../platform/db/database.ts';
import type { Config } from '../../config/config.ts';
import type { Platform } from '../../platform/platform.ts';
import { isVenue } from '../exchange/index.ts';
import { createOrderPlacer } from './adapters/order-placer.ts';
import { claimTakeOverAfterMs } from './alerts.domain.ts';
import { createAlertsService } from './alerts.service.ts';
import { createAlertOrderStep } from './alert-order-step.ts';
import { createAlertSettler } from './alert-settle.service.ts';
import { createHooksService } from './hooks.service.ts';
import { alertsRoutes } from './routes/alerts.routes.ts';
import { hooksRoutes } from './routes/hooks.routes.ts';
import type { SignalsDeps } from './signals.deps.ts';
import { createSignalsRepository } from './signals.repository.ts';
import { bindJob } from '../../platform/jobs.ts';
import { pruneSignalAlertsJob } from './prune-signal-alerts.job.ts';
import { settleSignalAlertsJob } from './settle-signal-alerts.job.ts';

export type { OrderPlacer, SignalOrder } from './signals.deps.ts';
export type { AlertSize } from './alerts.domain.ts';
export { SIGNALS_EVENTS } from './signals.events.ts';

/** When a repeat may take over an alert's claim left without an order id (decision 710), from the configured bounds. */
export function alertClaimTakeOverAfterMs(config: Pick<Config, 'venueBudget' | 'exchange' | 'resilience'>): number {
  return claimTakeOverAfterMs({
    venueRequestMs: config.venueBudget.maxWaitMs + config.exchange.timeoutMs,
    statementMs:
      config.resilience.databaseConnectTimeoutMs + config.resilience.databaseQueryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
  });
}

export function createSignalsModule(platform: Platform, deps: SignalsDeps) {
  const { config, database, cache, clock, logger } = platform;
  const repo = createSignalsRepository(database.db);
  const hooks = createHooksService({ db: database.db, repo, accounts: deps.accounts, clock });
  const placer = createOrderPlacer({
    place: (input, actor, key, origin) => deps.orders.place(input, actor, key, origin),
    keyed: (userId, key) => deps.orders.keyed(userId, key),
    market: async (exchange, symbol) => (isVenue(exchange) ? deps.markets.market(exchange, symbol) : null),
    lastPrice: async (exchange, symbol) => (isVenue(exchange) ? deps.markets.lastPrice(exchange, symbol) : null),
    paperFree: (userId, asset) => deps.paper.free(userId, asset),
    liveTrading: config.orders.liveTrading,
  });
  const step = createAlertOrderStep({ repo, hooks, placer, events: deps.events, clock });
  const alerts = createAlertsService({
    repo,
    cache,
    limits: {
      hookPerMinute: config.signals.hookLimitPerMinute,
      addressPerMinute: config.signals.addressLimitPerMinute,
      ownerPerMinute: config.signals.ownerLimitPerMinute,
      sharedAddresses: config.signals.sharedAddresses,
    },
    ackWithinMs: config.signals.ackWithinMs,
    takeOverAfterMs: alertClaimTakeOverAfterMs(config),
    step,
    clock,
    logger,
  });
  const settler = createAlertSettler({ repo, step, takeOverAfterMs: alertClaimTakeOverAfterMs(config), clock, logger });
  return {
    name: 'signals',
    routes: async (app: FastifyInstance) => {
      await app.register(hooksRoutes({ hooks, guards: deps.guards, publicUrl: config.signals.publicUrl }));
      await app.register(alertsRoutes({ alerts }));
    },
    jobs: [bindJob(pruneSignalAlertsJob, { alerts: repo }), bindJob(settleSignalAlertsJob, { alerts: settler })],
    /** Removes every hook of an account a provider's first link claims (decision 790). */
    removeAllOnClaim: hooks.removeAllOnClaim,
  };
}

export type SignalsModule = ReturnType<typeof createSignalsModule>;

/** What the module contributes to the app and the database (decision 230). */
export { SIGNALS_MODULE } from './signals.module.ts';
