import type { FastifyInstance } from 'fastify';
import { WEBHOOK_PROVIDERS, type WebhookProvider } from '../../config/config.ts';
import type { Platform } from '../../platform/platform.ts';
import type { WebhooksDeps } from './webhooks.deps.ts';
import { authproviderHandler } from './providers/authprovider.provider.ts';
import { codehostHandler } from './providers/codehost.provider.ts';
import { databaseHandler } from './providers/database.provider.ts';
import { edgeHandler } from './providers/edge.provider.ts';
import { errormonHandler } from './providers/errormon.provider.ts';
import { mailerHandler } from './providers/mailer.provider.ts';
import { createPaymentsHandler } from './providers/payments.provider.ts';
import type { ProviderHandler } from './providers/provider.ts';
import { trackerHandler } from './providers/tracker.provider.ts';
import { authproviderRoutes } from './routes/authprovider.routes.ts';
import { codehostRoutes } from './routes/codehost.routes.ts';
import { databaseRoutes } from './routes/database.routes.ts';
import { edgeRoutes } from './routes/edge.routes.ts';
import { errormonRoutes } from './routes/errormon.routes.ts';
import { webhookHealthRoutes } from './routes/health.routes.ts';
import { mailerRoutes } from './routes/mailer.routes.ts';
import { paymentsRoutes } from './routes/payments.routes.ts';
import { trackerRoutes } from './routes/tracker.routes.ts';
import { createDeliveryRepository } from './webhooks.repository.ts';
import { createWebhooksService } from './webhooks.service.ts';
import { createAdmissionService } from './admission.service.ts';
import { registerSignedBodyParser } from './routes/signed-body.ts';
import { revenueByCurrency } from './payments.repository.ts';

export function createWebhooksModule(platform: Platform, deps: WebhooksDeps) {
  const { config, database, clock, cache, logger } = platform;
  const handlers: Record<WebhookProvider, ProviderHandler> = {
    codehost: codehostHandler,
    payments: createPaymentsHandler({ gracePeriodDays: config.billing.gracePeriodDays }),
    edge: edgeHandler,
    tracker: trackerHandler,
    errormon: errormonHandler,
    database: databaseHandler,
    authprovider: authproviderHandler,
    mailer: mailerHandler,
  };
  const admission = createAdmissionService({ handlers, settings: config.webhooks, clock, cache, logger });
  const service = createWebhooksService({
    db: database.db,
    repo: createDeliveryRepository(database.db, WEBHOOK_PROVIDERS),
    handlers,
    admission,
    settings: config.webhooks,
    clock,
    cache,
    users: deps.users,
    messages: deps.messages,
    events: deps.events,
    logger,
  });

  return {
    name: 'webhooks',
    service,
    /** Sums of the payments ledger per currency, exact decimal strings, for the admin statistics. */
    revenueByCurrency: () => revenueByCurrency(database.db),
    async routes(app: FastifyInstance) {
      // Webhook bodies are JSON only: a text/plain body is refused with 415 rather than half-parsed.
      app.removeContentTypeParser('text/plain');
      // And JSON is parsed only once the signature over its bytes has matched.
      registerSignedBodyParser(app, admission);
      app.addHook('onClose', async () => admission.close());
      for (const routes of [
        codehostRoutes,
        paymentsRoutes,
        edgeRoutes,
        trackerRoutes,
        errormonRoutes,
        databaseRoutes,
        authproviderRoutes,
        mailerRoutes,
        webhookHealthRoutes,
      ]) {
        await app.register(routes({ service, admission }));
      }
    },
  };
}

export type WebhooksModule = ReturnType<typeof createWebhooksModule>;
