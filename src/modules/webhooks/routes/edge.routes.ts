import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { EdgeHeaders } from '../webhooks.schemas.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function edgeRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'edge',
      url: '/api/webhooks/platforms/edge',
      operationId: 'receiveEdgeEvent',
      security: ['edgeSignature'],
      summary: 'Receive an edge deployment (Vercel) event',
      description:
        '`deployment.succeeded`/`ready`, `deployment.error` and `deployment.canceled` post a chat ' +
        'notification; other events are stored only. Signed with `x-vercel-signature`; the body ' +
        '`id` is the deduplication key.',
      headers: EdgeHeaders,
    });
  };
}
