import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EdgeHeaders } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';
import { registerReceiver } from './receiver.ts';

export function edgeRoutes(deps: { service: WebhooksService }): FastifyPluginAsyncTypebox {
  const { service } = deps;
  return async function routes(app) {
    registerReceiver(app, service, {
      provider: 'edge',
      url: '/api/webhooks/platforms/edge',
      operationId: 'receiveEdgeEvent',
      security: ['edgeSignature'],
      summary: 'Receive an edge deployment (Vercel) event',
      description:
        '`deployment.succeeded`/`ready`, `deployment.error` and `deployment.canceled` post a chat notification; other events are stored only.' +
        ' Signed with `x-vercel-signature`; the body `id` is the deduplication key.',
      headers: EdgeHeaders,
    });
  };
}
