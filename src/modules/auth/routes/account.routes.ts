// The signed-in account. Its own file, registered after the others, keeps the operations in the
// OpenAPI document in the order they have always had.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { AuthService } from '../auth.service.ts';
import { Account, accountWire } from '../../users/index.ts';
import { tags } from './auth-requests.ts';

/** The signed-in account, and which of its second factors is an authenticator app (passkeys: GET /api/auth/passkeys). */
const Me = Type.Object(
  {
    ...Account.properties,
    totpEnabled: Type.Boolean({
      description: 'Whether a TOTP authenticator app is on (`twoFactorEnabled` is also true with a passkey).',
    }),
  },
  { description: 'The signed-in account.' },
);

export function accountRoutes(deps: { service: AuthService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    app.get(
      '/api/auth/me',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          operationId: 'getCurrentUser',
          summary: 'The signed-in account',
          description:
            'Every authenticated request re-checks the account and session; a suspension or logout takes ' +
            'effect within about 2 seconds.',
          security: bearerSecurity,
          response: { 200: Me, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const user = await service.me(currentUser(request).id);
        return { ...accountWire(user), totpEnabled: user.totpEnabled };
      },
    );
  };
}
