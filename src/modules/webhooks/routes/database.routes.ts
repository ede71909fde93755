import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DatabaseHeaders } from '../webhooks.schemas.ts';
import type { WebhooksService } from '../webhooks.service.ts';
import { registerReceiver } from './receiver.ts';

export function databaseRoutes(deps: { service: WebhooksService }): FastifyPluginAsyncTypebox {
  const { service } = deps;
  return async function routes(app) {
    registerReceiver(app, service, {
      provider: 'database',
      url: '/api/webhooks/platforms/database',
      operationId: 'receiveDatabaseEvent',
      security: ['databaseSecret'],
      summary: 'Receive a database (Supabase) row change',
      description:
        'Authenticated by `Authorization: Bearer <secret>` (database webhooks are not signed). An INSERT on a user table (users, profiles) posts' +
        ' "New user signed up", a DELETE "User removed"; other changes are stored only. The body hash is the deduplication key.',
      headers: DatabaseHeaders,
    });
  };
}
