import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, Detail, errorResponses } from '../../../platform/http/schemas.ts';
import {
  KeyCreateBody,
  KeyIdParams,
  KeyListQuery,
  KeyRecord,
  KeyTestResult,
  KeyUpdateBody,
  RotationReminder,
} from '../provider-keys.schemas.ts';
import type { ProviderKeysService } from '../provider-keys.service.ts';
import { keyRecordWire, keyTestWire, rotationReminderWire } from '../provider-keys.wire.ts';

const tags = ['admin: provider API keys'];
const base = '/api/v1/admin/api-keys';

export function providerKeyRoutes(deps: { service: ProviderKeysService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const common = { onRequest: guards.requireAdmin };

    // Registered before `/{key_id}` routes for readers; the router prefers static segments anyway.
    app.get(
      `${base}/rotation-reminders`,
      {
        ...common,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'listKeyRotationReminders',
          summary: 'Active keys due for rotation',
          description: 'Active keys whose next_rotation_date is past or within 14 days, soonest first.',
          security: bearerSecurity,
          response: { 200: Type.Array(RotationReminder), 401: Detail, 403: Detail },
        },
      },
      async () => (await service.rotationReminders()).map(rotationReminderWire),
    );

    app.get(
      base,
      {
        ...common,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'listProviderApiKeys',
          summary: 'List provider API keys',
          description: 'Ordered by provider, newest first within one. Only key_prefix is ever returned.',
          security: bearerSecurity,
          querystring: KeyListQuery,
          response: { 200: Type.Array(KeyRecord), ...errorResponses(401, 403) },
        },
      },
      async (request) => (await service.list(request.query.include_inactive)).map(keyRecordWire),
    );

    app.post(
      base,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'createProviderApiKey',
          summary: 'Add a provider API key',
          description: 'The key is sealed with AES-256-GCM before storage; the answer carries only its prefix.',
          security: bearerSecurity,
          body: KeyCreateBody,
          response: { 201: KeyRecord, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(keyRecordWire(await service.create(request.body, actorOf(request)))),
    );

    app.put(
      `${base}/:key_id`,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'updateProviderApiKey',
          summary: 'Change a provider API key',
          description:
            'Fields sent are applied. `last_rotated_at` or a new `api_key` marks the key as rotated; ' +
            'next_rotation_date is recomputed as (last_rotated_at or created_at) + rotation_reminder_days.',
          security: bearerSecurity,
          params: KeyIdParams,
          body: KeyUpdateBody,
          response: { 200: KeyRecord, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => keyRecordWire(await service.update(request.params.key_id, request.body, actorOf(request))),
    );

    app.delete(
      `${base}/:key_id`,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'deleteProviderApiKey',
          summary: 'Delete a provider API key',
          description: 'Removes the key and its encrypted material; 204 with no body.',
          security: bearerSecurity,
          params: KeyIdParams,
          response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await service.remove(request.params.key_id, actorOf(request));
        return reply.code(204).send(null);
      },
    );

    app.post(
      `${base}/:key_id/test`,
      {
        ...common,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'testProviderApiKey',
          summary: "Check a key against the provider's API",
          description:
            "Calls the provider's cheapest authenticated endpoint (model list; one-result search for " +
            'tavily and serper) with a timeout. A refused key, a rate limit, a provider error, a ' +
            'timeout or an unreachable provider all answer 200 with is_valid false and a reason. Counts ' +
            'as a use (last_used_at, usage_count).',
          security: bearerSecurity,
          params: KeyIdParams,
          response: { 200: KeyTestResult, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => keyTestWire(await service.test(request.params.key_id, actorOf(request))),
    );
  };
}
