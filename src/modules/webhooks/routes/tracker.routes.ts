import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TrackerHeaders } from '../webhooks.schemas.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function trackerRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'tracker',
      url: '/api/webhooks/platforms/tracker',
      operationId: 'receiveTrackerEvent',
      security: ['trackerSignature'],
      summary: 'Receive an issue tracker (Linear) event',
      description:
        'Issues created, moved to another state or removed, and new comments post a chat ' +
        'notification; other changes are stored only. A body `webhookTimestamp` more than 60 s from ' +
        'now is refused (401) as a replay.',
      headers: TrackerHeaders,
    });
  };
}
