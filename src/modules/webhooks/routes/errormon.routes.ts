import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrormonHeaders } from '../webhooks.schemas.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function errormonRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'errormon',
      url: '/api/webhooks/platforms/errormon',
      operationId: 'receiveErrormonEvent',
      security: ['errormonSignature'],
      summary: 'Receive an error monitoring (Sentry) event',
      description:
        'Issues created or resolved, triggered alert rules, metric alerts (critical, warning, resolved) and ' +
        'new errors post a chat notification; other resources are stored only.',
      headers: ErrormonHeaders,
    });
  };
}
