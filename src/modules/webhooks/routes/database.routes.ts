import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DatabaseHeaders } from '../webhooks.schemas.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function databaseRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'database',
      url: '/api/webhooks/platforms/database',
      operationId: 'receiveDatabaseEvent',
      security: ['databaseSecret'],
      summary: 'Receive a database (Supabase) row change',
      description:
        'Authenticated by `Authorization: Bearer <secret>` (database webhooks are not signed). An INSERT on a ' +
        'user table (users, profiles) posts "New user signed up", a DELETE "User removed"; other changes are ' +
        'stored only. The body hash is the deduplication key.',
      headers: DatabaseHeaders,
    });
  };
}
