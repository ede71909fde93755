// The signed-in account proving its address (decision 845): a code mailed to it, sent back by the same account.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser, type Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { Success, VerifyEmailBody } from '../auth.schemas.ts';
import { EMAIL_VERIFICATION, type EmailVerificationService } from '../email-verification.service.ts';
import { tags } from './auth-requests.ts';

export function emailVerificationRoutes(deps: {
  verification: EmailVerificationService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { verification, guards } = deps;
  return async function routes(app) {
    app.post(
      '/api/auth/email/verify-request',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'requestEmailVerification',
          summary: "Mail a code that proves the account's address",
          description:
            "Mails the signed-in account's address a new verification code (valid 24 hours, single use; it " +
            `replaces any earlier code) and answers 202. At most ${EMAIL_VERIFICATION.perUser} an hour per ` +
            'account (429 with `Retry-After` past it). 409 when the address is verified already. Account ' +
            'notices are mailed only to a verified address. Not open to API tokens.',
          security: bearerSecurity,
          response: { 202: Success, ...errorResponses(401, 403, 409, 429) },
        },
      },
      async (request, reply) => {
        await verification.request(currentUser(request).id);
        return reply.code(202).send({ success: true });
      },
    );

    app.post(
      '/api/auth/email/verify',
      {
        onRequest: guards.requireUser,
        config: { tokenScope: 'refused' },
        schema: {
          tags,
          operationId: 'verifyEmail',
          summary: "Prove the account's address with the mailed code",
          description:
            "Spends the signed-in account's code and marks its address verified (`emailVerified` in " +
            'GET /api/auth/me). A code works once, for 24 hours, only for the account it was mailed to and ' +
            'only while its address is the one it was mailed to: otherwise 400. Not open to API tokens.',
          security: bearerSecurity,
          body: VerifyEmailBody,
          response: { 200: Success, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => {
        await verification.verify(currentUser(request).id, request.body.token, request.ip);
        return { success: true };
      },
    );
  };
}
