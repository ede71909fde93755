// Scoped API tokens (decision 144): made, listed and revoked with a session, never with a token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { ApiTokenCreateBody, ApiTokenCreated, ApiTokenIdParams, ApiTokenList } from '../auth.schemas.ts';
import type { ApiTokensService } from '../api-tokens.service.ts';
import { apiTokenCreatedWire, apiTokenWire } from '../auth.wire.ts';
import { tags } from './auth-requests.ts';

export function apiTokensRoutes(deps: { apiTokens: ApiTokensService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { apiTokens, guards } = deps;
  return async function routes(app) {
    app.post(
      '/api/auth/tokens',
      {
        onRequest: guards.requireStepUp,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'createApiToken',
          summary: 'Make a scoped API token for a script or bot; shown once',
          description:
            'Answers the token (`tpk_…`, for `Authorization: Bearer`) this once; only its hash is kept. It may ' +
            'do what its `scopes` allow and nothing else (403 naming the missing scope), never more than its ' +
            'owner: the admin scopes are for admins (422 otherwise), and a demoted, suspended or deleted ' +
            "owner's tokens stop working at once. Tokens cannot sign in, change passwords, manage two-factor " +
            'or manage tokens. `expires_in_days` 1 to 365, 90 by default. With two-factor on, a second factor ' +
            'within `STEP_UP_MAX_AGE_MINUTES` is needed (403 "Second factor required").',
          security: bearerSecurity,
          body: ApiTokenCreateBody,
          response: { 201: ApiTokenCreated, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        void reply.header('cache-control', 'no-store');
        const user = currentUser(request);
        return reply.code(201).send(apiTokenCreatedWire(await apiTokens.create(user, request.body, request.ip)));
      },
    );

    app.get(
      '/api/auth/tokens',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'listApiTokens',
          summary: 'Your API tokens (never the tokens themselves)',
          description:
            'The tokens that are neither revoked nor expired, oldest first, with when each ' +
            'was last used (to the minute).',
          security: bearerSecurity,
          response: { 200: ApiTokenList, ...errorResponses(401, 403) },
        },
      },
      async (request) => (await apiTokens.list(currentUser(request).id)).map(apiTokenWire),
    );

    app.delete(
      '/api/auth/tokens/:token_id',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'revokeApiToken',
          summary: 'Revoke an API token',
          description:
            'The token is refused from now on, on every instance (tokens are checked against the database on ' +
            'each request). 404 for a token that is not yours, or already revoked.',
          security: bearerSecurity,
          params: ApiTokenIdParams,
          response: { 204: Type.Null({ description: 'Revoked.' }), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await apiTokens.revoke(currentUser(request).id, request.params.token_id, request.ip);
        return reply.code(204).send(null);
      },
    );
  };
}
