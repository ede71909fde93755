import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PlatformsHealth, WebhooksHealth } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';
import { tags } from './receiver.ts';
import { mailerHealthWire, platformsHealthWire } from '../webhooks.wire.ts';

/**
 * Anyone may ask, and each answer reads every provider's figures and last rejection: repeats within a
 * second are answered from the response micro-cache instead (decision 963).
 */
const HEALTH_MICRO_CACHE_MS = 1_000;

export function webhookHealthRoutes(deps: { service: WebhooksService }): FastifyPluginAsyncTypebox {
  const { service } = deps;
  return async function routes(app) {
    app.get(
      '/api/webhooks/platforms/health',
      {
        config: { microCacheMs: HEALTH_MICRO_CACHE_MS },
        schema: {
          tags,
          operationId: 'getPlatformWebhooksHealth',
          summary: 'Platform webhooks: per provider, whether its secret is configured and when its last delivery came',
          description:
            'Never reveals a secret, only whether one is set. `degraded` when some provider would answer 503.',
          response: { 200: PlatformsHealth },
        },
      },
      async () => platformsHealthWire(await service.platformsHealth()),
    );

    app.get(
      '/api/webhooks/health',
      {
        config: { microCacheMs: HEALTH_MICRO_CACHE_MS },
        schema: {
          tags,
          operationId: 'getMailerWebhookHealth',
          summary: 'Mail event webhook health',
          response: { 200: WebhooksHealth },
        },
      },
      async () => mailerHealthWire(await service.mailerHealth()),
    );
  };
}
