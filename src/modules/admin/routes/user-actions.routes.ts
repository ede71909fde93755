// Admin actions over users: bulk actions, export downloads and password resets.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, Detail, errorResponses } from '../../../platform/http/schemas.ts';
import {
  BulkActionBody,
  BulkActionResult,
  ExportCsv,
  ExportParams,
  ResetPasswordQuery,
  ResetPasswordResult,
} from '../user-actions.schemas.ts';
import type { UserActionsService } from '../user-actions.service.ts';
import { bulkActionWire, resetPasswordWire } from '../admin.wire.ts';
import { actorOf } from '../../../platform/auth/actor.ts';

const tags = ['admin'];

export function userActionsRoutes(deps: { service: UserActionsService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireAdmin;
    // A change to other accounts wants the admin's fresh second factor (decision 202).
    const changes = guards.requireAdminStepUp;
    const security = bearerSecurity;

    app.post(
      '/api/admin/users/bulk-action',
      {
        onRequest: changes,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'bulkUserAction',
          summary: 'Act on many users at once',
          description:
            'Unknown ids are reported in `notFound` and do not fail the request. `suspend` and `delete` ' +
            "revoke the sessions of each user (refused from their next request); the acting admin's own " +
            "account is never suspended or deleted, nor by another admin the platform owner's (decisions 903, " +
            '1051): each is reported in `skipped` with the reason. `export` stores a CSV of the ' +
            'users found and answers `exportUrl`, downloadable with an admin token for 24 hours. Each ' +
            'changed user gets an audit entry.' +
            ' An admin with two-factor on needs a second factor within `STEP_UP_MAX_AGE_MINUTES` (403 `Second factor required`; `POST /api/auth/2fa/step-up`).',
          security,
          body: BulkActionBody,
          response: { 200: BulkActionResult, ...errorResponses(401, 403) },
        },
      },
      async (request) => bulkActionWire(await service.bulkAction(request.body, actorOf(request))),
    );

    app.get(
      '/api/admin/users/exports/:export_id',
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'downloadUserExport',
          summary: 'Download a user export (CSV)',
          description: 'The CSV made by a bulk `export`, available to any admin until it expires (24 hours).',
          security,
          params: ExportParams,
          response: {
            200: { description: 'The CSV file.', content: { 'text/csv': { schema: ExportCsv } } },
            401: Detail,
            403: Detail,
            404: Detail,
          },
        },
      },
      async (request, reply) => {
        const file = await service.downloadExport(request.params.export_id);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${file.fileName}"`)
          .send(file.content);
      },
    );

    app.post(
      '/api/admin/users/reset-password',
      {
        onRequest: changes,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'resetUserPassword',
          summary: "Reset a user's password",
          description:
            'Sets a new random 20-character password, revokes every session and voids pending reset ' +
            'links. `userId` and `email` must name the same user (else 404). With `sendEmail` the new ' +
            'password is mailed to the user through the outbox (never to a suppressed address); it is ' +
            'never returned or logged. A deleted user must be activated first (409). An admin cannot ' +
            'reset their own password here (409): they change it with `POST /api/auth/password`, or the ' +
            "operator runs `users:reset-password`. Nor can another admin reset the platform owner's (409, the " +
            "detail saying the account is the owner's; decisions 903, 1051)." +
            ' An admin with two-factor on needs a second factor within `STEP_UP_MAX_AGE_MINUTES` (403 `Second factor required`; `POST /api/auth/2fa/step-up`).',
          security,
          querystring: ResetPasswordQuery,
          response: { 200: ResetPasswordResult, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => resetPasswordWire(await service.resetPassword(request.query, actorOf(request))),
    );
  };
}
