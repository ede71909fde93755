// Platform statistics for the admin dashboard.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, Detail } from '../../../platform/http/schemas.ts';
import { PlatformStats } from '../users.schemas.ts';
import type { UsersService } from '../users.service.ts';

export function statsRoutes(deps: { service: UsersService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    app.get(
      '/api/admin/stats',
      {
        onRequest: guards.requireAdmin,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags: ['admin'],
          operationId: 'getPlatformStats',
          summary: 'Platform statistics',
          description:
            'User counts (deleted users are not counted), users created this UTC calendar month, and the sum ' +
            'of the payments ledger in the settlement currency, with the sums of every currency beside it.',
          security: bearerSecurity,
          response: { 200: PlatformStats, 401: Detail, 403: Detail },
        },
      },
      async () => service.stats(),
    );
  };
}
