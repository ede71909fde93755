import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../../platform/http/errors.ts';
import { AuthHookAnswer, AuthHookHeaders, HookError } from '../webhooks.schemas.ts';
import { hookError } from '../providers/authprovider.provider.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function authproviderRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    // The auth provider reads `error.message` of a non-2xx answer; our clients read `detail`. Give both.
    app.setErrorHandler((error, _request, reply) => {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const message = typeof error.detail === 'string' ? error.detail : 'Request validation failed';
      void reply
        .code(error.status)
        .headers(error.headers)
        .send({ detail: error.detail, error: { http_code: error.status, message } });
    });

    registerReceiver(app, deps, {
      provider: 'authprovider',
      url: '/api/webhooks/platforms/authprovider/auth-hook',
      operationId: 'receiveAuthProviderHook',
      security: ['authHookSecret', 'authHookSignature'],
      summary: 'Auth provider (Supabase Auth) hook: custom access token or send email',
      description:
        'Custom access token hook: `{user_id, claims, authentication_method}` answers `{claims}` with ' +
        'every claim kept and, for a user of ours (matched by `claims.email`, else by id), `user_role` and ' +
        '`subscription_tier` added; a suspended or deleted user answers 403. Send email hook: `{user, ' +
        'email_data}` queues the mail (subject and text by `email_action_type`, with the code and the ' +
        'verification link) and answers `{}`; 400 when the address is suppressed. Errors carry `{"error": ' +
        '{"http_code", "message"}}` beside `detail`. Authenticated by `Authorization: Bearer <secret>` or ' +
        'a Standard Webhooks signature.',
      headers: AuthHookHeaders,
      response: AuthHookAnswer,
      errorBody: (status, detail) => hookError(status, detail).body,
      errors: Object.fromEntries([400, 401, 403, 413, 415, 422, 500, 503].map((status) => [status, HookError])),
    });
  };
}
