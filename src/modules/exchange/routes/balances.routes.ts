import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { createBalancesService } from '../balances.service.ts';
import {
  BalanceHistory,
  BalanceHistoryQuery,
  BalanceQuery,
  BalanceResponse,
  BalanceSyncQuery,
  BalanceSyncResult,
} from '../balances.schemas.ts';
import { tags } from '../common.schemas.ts';
import type { SyncThrottle } from '../sync-throttle.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { balanceHistoryWire, balanceSyncWire, balancesWire } from '../exchange.wire.ts';

const security = bearerSecurity;

export function balancesRoutes(deps: {
  throttle: SyncThrottle;
  balances: ReturnType<typeof createBalancesService>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { balances, guards, throttle } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/exchange/balance',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getBalance',
          summary: 'Your latest stored balance snapshot',
          description:
            'Answers from the latest successful sync (no venue call); empty with last_sync null before the ' +
            'first sync. A credential_id that is not yours is a 404, one of another venue a 400.',
          querystring: BalanceQuery,
          response: { 200: BalanceResponse, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const { exchange, currency, credential_id } = request.query;
        return balancesWire(await balances.latest(actorOf(request).id, exchange, currency, credential_id));
      },
    );

    app.post(
      '/api/exchange/balance/sync',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        preHandler: throttle.hook('balance'),
        schema: {
          tags,
          security,
          operationId: 'syncBalance',
          summary: 'Fetch your balance from the venue and store a snapshot',
          description:
            'A venue failure answers 200 with success false, error and error_type (auth, rate_limit, ' +
            "network, exchange). No credential for the venue is a 404. When the venue's shared " +
            'request-weight budget is used up, or a 429/418 from the venue pauses every call to it, nothing ' +
            'is sent and the answer is 503 with Retry-After. ' +
            'Each user may ask for it SYNC_PER_USER_PER_MINUTE times a minute (10 by default; beyond, 429 with ' +
            "Retry-After saying the user's sync is throttled), and one user's calls may take at most " +
            "VENUE_USER_SHARE_PERCENT of the venue's budget in a minute (25 by default; beyond, 429 with " +
            'Retry-After while other users go on).',
          querystring: BalanceSyncQuery,
          response: { 200: BalanceSyncResult, ...errorResponses(400, 401, 403, 404, 429, 503) },
        },
      },
      async (request) =>
        balanceSyncWire(await balances.sync(request.query.exchange, request.query.credential_id, actorOf(request))),
    );

    app.get(
      '/api/exchange/balance/history',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getBalanceHistory',
          summary: 'Stored snapshots of one currency, newest first',
          querystring: BalanceHistoryQuery,
          response: { 200: BalanceHistory, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const { exchange, currency, start_date, end_date, limit } = request.query;
        return balanceHistoryWire(
          await balances.history({
            userId: actorOf(request).id,
            venue: exchange,
            currency,
            start: start_date ? new Date(start_date) : undefined,
            end: end_date ? new Date(end_date) : undefined,
            limit,
          }),
        );
      },
    );
  };
}
