// Admin user management: list, read, change, soft-delete, and a user's activity.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import {
  ActivityEntry,
  ActivityQuery,
  SuccessFlag,
  User,
  UserIdParams,
  UserList,
  UserListQuery,
  UserPatch,
} from '../users.schemas.ts';
import type { UsersService } from '../users.service.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { activityWire, userListWire, userWire } from '../admin.wire.ts';

const tags = ['admin'];

export function usersRoutes(deps: { service: UsersService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireAdmin;
    // A change to another account wants the admin's fresh second factor (decision 202).
    const changes = guards.requireAdminStepUp;
    const security = bearerSecurity;

    app.get(
      '/api/admin/users',
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'listUsers',
          summary: 'List users',
          description:
            'Pages of users, newest account first (ties by id, descending), so consecutive pages never ' +
            'overlap. `search` is a case-insensitive substring of the e-mail, first name, last name or "first ' +
            'last"; `%` and `_` match themselves. Deleted users are listed only with `status=deleted`.',
          security,
          querystring: UserListQuery,
          response: { 200: UserList, ...errorResponses(401, 403) },
        },
      },
      async (request) => userListWire(await service.listUsers(request.query)),
    );

    app.get(
      '/api/admin/users/:user_id',
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'getUser',
          summary: 'Get a user',
          description: 'Any user, deleted ones included. An id that is not a UUID is an unknown user (404).',
          security,
          params: UserIdParams,
          response: { 200: User, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => userWire(await service.getUser(request.params.user_id)),
    );

    app.patch(
      '/api/admin/users/:user_id',
      {
        onRequest: changes,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'updateUser',
          summary: 'Change a user',
          description:
            'Changes role, tier, status and flags. Suspending or deleting revokes every session: the user is ' +
            'refused (403) from the next request. `active` restores a suspended or deleted user. An admin ' +
            'cannot demote, suspend or delete their own account (409). Audited as `admin.user.update`.' +
            " Another admin's change of the platform owner's account (the configured first admin's, decision 903) to " +
            'its `role`, `status` (suspend, delete), `emailVerified` or a `twoFactorEnabled` reset is refused ' +
            "(409, the detail saying the account is the owner's); a field sent unchanged, the tier and " +
            'reactivation pass. The user object has no field for it (decision 1051).' +
            ' An admin with two-factor on needs a second factor within `STEP_UP_MAX_AGE_MINUTES` (403 `Second factor required`; `POST /api/auth/2fa/step-up`).',
          security,
          params: UserIdParams,
          body: UserPatch,
          response: { 200: User, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => userWire(await service.updateUser(request.params.user_id, request.body, actorOf(request))),
    );

    app.delete(
      '/api/admin/users/:user_id',
      {
        onRequest: changes,
        config: { tokenScope: 'admin:write' },
        schema: {
          tags,
          operationId: 'deleteUser',
          summary: 'Delete a user (soft)',
          description:
            'Sets status `deleted`, stamps the deletion and revokes every session; the record and its history ' +
            'are kept, and PATCH `status: active` restores it. Deleting a deleted user changes nothing. An ' +
            "admin cannot delete their own account (409), nor another admin the platform owner's (409, the " +
            "detail saying the account is the owner's; decisions 903, 1051)." +
            ' An admin with two-factor on needs a second factor within `STEP_UP_MAX_AGE_MINUTES` (403 `Second factor required`; `POST /api/auth/2fa/step-up`).',
          security,
          params: UserIdParams,
          response: { 200: SuccessFlag, ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => {
        await service.deleteUser(request.params.user_id, actorOf(request));
        return { success: true };
      },
    );

    app.get(
      '/api/admin/users/:user_id/activity',
      {
        onRequest,
        config: { tokenScope: 'admin:read' },
        schema: {
          tags,
          operationId: 'getUserActivity',
          summary: "A user's activity",
          description:
            'Audit-log entries where the user is the subject (e.g. their logins, changes made to them) or the ' +
            'actor (what they did), newest first.',
          security,
          params: UserIdParams,
          querystring: ActivityQuery,
          response: { 200: Type.Array(ActivityEntry), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => (await service.activity(request.params.user_id, request.query.limit)).map(activityWire),
    );
  };
}
