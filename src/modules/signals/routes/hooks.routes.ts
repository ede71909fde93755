import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { HooksService } from '../hooks.service.ts';
import { HookCreateBody, HookIdParams, HookList, HookWithSecret } from '../signals.schemas.ts';
import { hookInputOf, hookWire, hookWithSecretWire } from '../signals.wire.ts';

const tags = ['signals'];
const base = '/api/signals/hooks';

export function hooksRoutes(deps: {
  hooks: HooksService;
  guards: Guards;
  /** PUBLIC_URL, when set: the origin the hooks' URLs name. */
  publicUrl: string | undefined;
}): FastifyPluginAsyncTypebox {
  const { hooks, guards, publicUrl } = deps;
  const originOf = (request: FastifyRequest) => publicUrl ?? `${request.protocol}://${request.host}`;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.post(
      base,
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'createSignalHook',
          summary: 'Make a TradingView alert hook',
          description:
            'Answers the URL to give TradingView and the secret alerts must carry, shown this once (only its ' +
            'hash is kept). A live hook needs two-factor on your account and, for a session, a second factor ' +
            'within STEP_UP_MAX_AGE_MINUTES, as a live order does (403 otherwise). Audited.',
          security: bearerSecurity,
          body: HookCreateBody,
          response: { 201: HookWithSecret, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        // A live hook's secret places live orders unattended: minted with a fresh second factor (decision 680).
        if (request.body.mode === 'live') guards.assertSteppedUp(request);
        return reply
          .code(201)
          .send(hookWithSecretWire(await hooks.create(hookInputOf(request.body), actorOf(request)), originOf(request)));
      },
    );

    app.get(
      base,
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'listSignalHooks',
          summary: 'Your TradingView alert hooks',
          description: 'Each with its counters and its last error; never a secret.',
          security: bearerSecurity,
          response: { 200: HookList, ...errorResponses(401, 403) },
        },
      },
      async (request) => ({
        hooks: (await hooks.list(actorOf(request).id)).map((row) => hookWire(row, originOf(request))),
      }),
    );

    app.post(
      `${base}/:hook_id/rotate`,
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'rotateSignalHookSecret',
          summary: "Replace a hook's secret",
          description:
            'Answers the new secret, shown this once; the old one is refused from now on. A live hook needs, ' +
            'for a session, a second factor within STEP_UP_MAX_AGE_MINUTES (403). Audited.',
          security: bearerSecurity,
          params: HookIdParams,
          response: { 200: HookWithSecret, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        hookWithSecretWire(
          await hooks.rotate(request.params.hook_id, actorOf(request), () => guards.assertSteppedUp(request)),
          originOf(request),
        ),
    );

    app.delete(
      `${base}/:hook_id`,
      {
        onRequest,
        config: { tokenScope: 'trade:write' },
        schema: {
          tags,
          operationId: 'deleteSignalHook',
          summary: 'Remove a hook',
          description: 'Its alerts are refused from now on; orders it made stay. Audited; 204 with no body.',
          security: bearerSecurity,
          params: HookIdParams,
          response: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await hooks.remove(request.params.hook_id, actorOf(request));
        return reply.code(204).send(null);
      },
    );
  };
}
