// The signed-in account's own password; an admin's reset of another account's is the admin module's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { ChangePasswordBody, Success } from '../auth.schemas.ts';
import type { PasswordService } from '../password.service.ts';
import { signInClientOf, tags } from './auth-requests.ts';

export function passwordRoutes(deps: { passwords: PasswordService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { passwords, guards } = deps;
  return async function routes(app) {
    app.post(
      '/api/auth/password',
      {
        onRequest: guards.requireStepUp,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'changePassword',
          summary: 'Change your own password; your other sessions are signed out',
          description:
            'Checks `current_password`, sets `new_password` (8 to 128 characters, as at registration, and ' +
            'different from the current one: 422 otherwise), revokes every other session of the account (this ' +
            'one stays signed in) and voids pending reset links. A wrong current password answers 400 and ' +
            'counts towards a limit of 5 per 15 minutes for the session (429 with `Retry-After` beyond it). Neither password ' +
            'is ever logged or returned. With two-factor on, a second factor within `STEP_UP_MAX_AGE_MINUTES` ' +
            'is needed first (403 "Second factor required"; POST /api/auth/2fa/step-up).',
          security: bearerSecurity,
          body: ChangePasswordBody,
          response: { 200: Success, ...errorResponses(400, 401, 403, 429) },
        },
      },
      async (request) => {
        const user = currentUser(request);
        await passwords.changePassword(
          { id: user.id, sessionId: user.sessionId },
          request.body,
          signInClientOf(request),
        );
        return { success: true };
      },
    );
  };
}
