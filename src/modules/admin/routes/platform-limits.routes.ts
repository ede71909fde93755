// The per-hour platform limits.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, Detail, errorResponses } from '../../../platform/http/schemas.ts';
import { PlatformLimits, PlatformLimitsPatch } from '../platform-limits.schemas.ts';
import type { PlatformLimitsService } from '../platform-limits.service.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { platformLimitsWire } from '../admin.wire.ts';

const tags = ['admin'];

export function platformLimitsRoutes(deps: {
  service: PlatformLimitsService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    app.get(
      '/api/admin/platform-limits',
      {
        onRequest: guards.requireAdmin,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'getPlatformLimits',
          summary: 'Platform limits',
          description: 'The per-hour limits in force (the defaults until changed) and the bounds of each.',
          security: bearerSecurity,
          response: { 200: PlatformLimits, 401: Detail, 403: Detail },
        },
      },
      async () => platformLimitsWire(await service.get()),
    );

    app.patch(
      '/api/admin/platform-limits',
      {
        onRequest: guards.requireAdmin,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'updatePlatformLimits',
          summary: 'Change platform limits',
          description: 'A value outside its bounds is refused (422). Audited as `admin.platform_limits.update`.',
          security: bearerSecurity,
          body: PlatformLimitsPatch,
          response: { 200: PlatformLimits, ...errorResponses(401, 403) },
        },
      },
      async (request) => platformLimitsWire(await service.update(request.body, actorOf(request))),
    );
  };
}
