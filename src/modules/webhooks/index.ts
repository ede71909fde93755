import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { WebhooksDeps } from './webhooks.deps.ts';
import {
  WEBHOOK_PROVIDER_DECLARATIONS,
  WEBHOOK_PROVIDERS,
  WEBHOOK_SECRET_VARIABLES,
  WEBHOOK_SECURITY_SCHEMES,
  webhookProviders,
  webhookSecrets,
} from './providers/registry.ts';
import { webhookHealthRoutes } from './routes/health.routes.ts';
import { receiverRoutes } from './routes/receiver.ts';
import { createDeliveryRepository } from './webhooks.repository.ts';
import { createWebhooksService } from './webhooks.service.ts';
import { createAdmissionService } from './admission.service.ts';
import { registerSignedBodyParser } from './routes/signed-body.ts';
import { createPaymentsRepository } from './payments.repository.ts';

/** The variables holding the providers' secrets: the entry points give them to config to read (decision 245). */
export { WEBHOOK_SECRET_VARIABLES };

/** What unverified webhook bodies may hold together beyond their own share (decision 961). */
const UNVERIFIED_POOL_BYTES = 64 * 1024 * 1024;

export function createWebhooksModule(platform: Platform, deps: WebhooksDeps) {
  const { config, database, clock, cache, logger } = platform;
  const settings = { allowUnsigned: config.webhooks.allowUnsigned, secrets: webhookSecrets(config.webhooks.secrets) };
  const providers = webhookProviders;
  const admission = createAdmissionService({ providers, settings, clock, cache, logger });
  const payments = createPaymentsRepository(database.db);
  const service = createWebhooksService({
    db: database.db,
    repo: createDeliveryRepository(database.db, WEBHOOK_PROVIDERS),
    payments,
    providers,
    admission,
    settings: { ...settings, gracePeriodDays: config.billing.gracePeriodDays },
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
    revenueByCurrency: () => payments.revenueByCurrency(),
    /** The providers' security schemes, for the OpenAPI document's components. */
    securitySchemes: WEBHOOK_SECURITY_SCHEMES,
    async routes(app: FastifyInstance) {
      // Webhook bodies are JSON only: a text/plain body is refused with 415 rather than half-parsed.
      app.removeContentTypeParser('text/plain');
      // And JSON is parsed only once the signature over its bytes has matched.
      // Unverified bodies beyond what any request may hold share one pool (decision 961), room for the largest.
      const freeBytes = app.initialConfig.bodyLimit ?? 0;
      const largest = Math.max(freeBytes, ...WEBHOOK_PROVIDER_DECLARATIONS.map((d) => d.bodyLimit));
      registerSignedBodyParser(app, admission, { freeBytes, limitBytes: Math.max(UNVERIFIED_POOL_BYTES, largest) });
      app.addHook('onClose', async () => admission.close());
      await app.register(receiverRoutes({ service, admission, providers: WEBHOOK_PROVIDER_DECLARATIONS }));
      await app.register(webhookHealthRoutes({ service }));
    },
  };
}

export type WebhooksModule = ReturnType<typeof createWebhooksModule>;

/** What the module contributes to the app and the database (decision 230). */
export { WEBHOOKS_MODULE } from './webhooks.module.ts';
