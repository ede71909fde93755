import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, Detail, errorResponses } from '../../../platform/http/schemas.ts';
import { RagSettings, RagSettingsUpdate } from '../rag-settings.schemas.ts';
import type { RagSettingsService } from '../rag-settings.service.ts';
import { ragSettingsWire } from '../rag-settings.wire.ts';

const tags = ['admin: retrieval settings'];
const path = '/api/v1/admin/rag-settings';

export function ragSettingsRoutes(deps: { service: RagSettingsService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    app.get(
      path,
      {
        onRequest: guards.requireAdmin,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'getRetrievalSettings',
          summary: 'Retrieval-collection settings',
          description: 'One stored row; on first read it is created with the defaults (version 1).',
          security: bearerSecurity,
          response: { 200: RagSettings, 401: Detail, 403: Detail },
        },
      },
      async () => ragSettingsWire(await service.get()),
    );

    app.put(
      path,
      {
        onRequest: guards.requireAdmin,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'updateRetrievalSettings',
          summary: 'Change retrieval-collection settings',
          description:
            'Applies the fields sent; `enabled_sources` and `collection_limits` are merged key by key into the ' +
            'stored maps. With `version` equal to the stored one the change is applied and the version grows ' +
            'by one; a different `version` answers 409 and changes nothing. Without `version` the change is ' +
            'applied to whatever is stored (last write wins). Out-of-range values answer 422.',
          security: bearerSecurity,
          body: RagSettingsUpdate,
          response: { 200: RagSettings, ...errorResponses(401, 403, 409) },
        },
      },
      async (request) => ragSettingsWire(await service.update(request.body, actorOf(request))),
    );
  };
}
