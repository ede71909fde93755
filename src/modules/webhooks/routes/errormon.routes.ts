import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrormonHeaders } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';
import { registerReceiver } from './receiver.ts';

export function errormonRoutes(deps: { service: WebhooksService }): FastifyPluginAsyncTypebox {
  const { service } = deps;
  return async function routes(app) {
    registerReceiver(app, service, {
      provider: 'errormon',
      url: '/api/webhooks/platforms/errormon',
      operationId: 'receiveErrormonEvent',
      security: ['errormonSignature'],
      summary: 'Receive an error monitoring (Sentry) event',
      description:
        'Issues created or resolved, triggered alert rules, metric alerts (critical, warning, resolved) and new errors post a chat notification;' +
        ' other resources are stored only.',
      headers: ErrormonHeaders,
    });
  };
}
