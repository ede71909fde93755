import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import type { SyncThrottle } from '../sync-throttle.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { tags } from '../common.schemas.ts';
import { TransferList, TransferSyncQuery, TransferSyncResult, TransfersQuery } from '../transfers.schemas.ts';
import type { createTransfersService } from '../transfers.service.ts';
import { transferListWire, transferSyncWire } from '../exchange.wire.ts';

const security = bearerSecurity;
const date = (value: string | undefined) => (value ? new Date(value) : undefined);

export function transfersRoutes(deps: {
  throttle: SyncThrottle;
  transfers: ReturnType<typeof createTransfersService>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { transfers, guards, throttle } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/exchange/transfers',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'listTransfers',
          summary: 'Your stored deposits and withdrawals, newest first',
          querystring: TransfersQuery,
          response: { 200: TransferList, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const q = request.query;
        return transferListWire(
          await transfers.list({
            userId: actorOf(request).id,
            venue: q.exchange,
            type: q.type,
            start: date(q.start_date),
            end: date(q.end_date),
            limit: q.limit,
            offset: q.offset,
          }),
        );
      },
    );

    app.post(
      '/api/exchange/transfers/sync',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        preHandler: throttle.hook('transfers'),
        schema: {
          tags,
          security,
          operationId: 'syncTransfers',
          summary: 'Fetch your deposits and withdrawals from the venue and store the new ones',
          description:
            'ccxt fetchDeposits and fetchWithdrawals (Binance: /sapi/v1/capital/deposit/hisrec and ' +
            '/sapi/v1/capital/withdraw/history), in windows of at most 90 days, from where the last sync of ' +
            'the credential stopped (a first sync from TRADE_SYNC_HORIZON_DAYS back; `since` starts ' +
            'elsewhere), at most 5 windows per type and call: `has_more` says whether to sync again. A ' +
            'record already stored only has its status updated. A venue failure answers 200 with success ' +
            "false, error and error_type. When the venue's shared request-weight budget is used up, or a " +
            '429/418 pauses every call to it, nothing more is sent and the answer is 503 with Retry-After ' +
            '(records stored before it are kept). ' +
            'Each user may ask for it SYNC_PER_USER_PER_MINUTE times a minute (10 by default; beyond, 429 with ' +
            "Retry-After saying the user's sync is throttled), and one user's calls may take at most " +
            "VENUE_USER_SHARE_PERCENT of the venue's budget in a minute (25 by default; beyond, 429 with " +
            'Retry-After while other users go on).',
          querystring: TransferSyncQuery,
          response: { 200: TransferSyncResult, ...errorResponses(400, 401, 403, 404, 429, 503) },
        },
      },
      async (request) => {
        const q = request.query;
        return transferSyncWire(
          await transfers.sync(q.exchange, { credentialId: q.credential_id, since: date(q.since) }, actorOf(request)),
        );
      },
    );
  };
}
