import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import { tags } from '../common.schemas.ts';
import {
  TradeList,
  TradeStats,
  TradeStatsQuery,
  TradeSyncQuery,
  TradeSyncResult,
  TradesQuery,
} from '../trades.schemas.ts';
import type { createTradesService } from '../trades.service.ts';
import type { SyncThrottle } from '../sync-throttle.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { tradeListWire, tradeStatsWire, tradeSyncWire } from '../exchange.wire.ts';

const security = bearerSecurity;
const date = (value: string | undefined) => (value ? new Date(value) : undefined);

export function tradesRoutes(deps: {
  throttle: SyncThrottle;
  trades: ReturnType<typeof createTradesService>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { trades, guards, throttle } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/exchange/trades',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'listTrades',
          summary: 'Your stored trades, newest first',
          querystring: TradesQuery,
          response: { 200: TradeList, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const q = request.query;
        return tradeListWire(
          await trades.list({
            userId: actorOf(request).id,
            venue: q.exchange,
            symbol: q.symbol,
            start: date(q.start_date),
            end: date(q.end_date),
            limit: q.limit,
            offset: q.offset,
          }),
        );
      },
    );

    app.post(
      '/api/exchange/trades/sync',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        preHandler: throttle.hook('trades'),
        schema: {
          tags,
          security,
          operationId: 'syncTrades',
          summary: 'Fetch your trades from the venue and store the new ones',
          description:
            'Each pair continues after the newest trade stored for the credential (Binance fromId; elsewhere ' +
            'from its time), one page of at most `limit` per call, so any number of new trades arrives over ' +
            "repeated syncs and none is skipped; `has_more` and each pair's `next_cursor` say whether and " +
            "where the next continues. A pair's first sync starts TRADE_SYNC_HORIZON_DAYS back (365 by " +
            'default); `since` starts elsewhere. Trades already stored (same venue, pair and venue trade id) ' +
            'are counted in trades_duplicate, never stored twice. A venue failure answers 200 with success ' +
            "false, error and error_type; a pair the venue does not list is a 404. When the venue's shared " +
            'request-weight budget is used up, or a 429/418 pauses every call to it, nothing more is sent and ' +
            'the answer is 503 with Retry-After (trades stored before it are kept). ' +
            'Each user may ask for it SYNC_PER_USER_PER_MINUTE times a minute (10 by default; beyond, 429 with ' +
            "Retry-After saying the user's sync is throttled), and one user's calls may take at most " +
            "VENUE_USER_SHARE_PERCENT of the venue's budget in a minute (25 by default; beyond, 429 with " +
            'Retry-After while other users go on).',
          querystring: TradeSyncQuery,
          response: { 200: TradeSyncResult, ...errorResponses(400, 401, 403, 404, 429, 503) },
        },
      },
      async (request) => {
        const q = request.query;
        return tradeSyncWire(
          await trades.sync(
            q.exchange,
            { credentialId: q.credential_id, symbol: q.symbol, since: date(q.since), limit: q.limit },
            actorOf(request),
          ),
        );
      },
    );

    app.get(
      '/api/exchange/trades/stats',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getTradeStats',
          summary: 'Counts and exact sums over your stored trades',
          querystring: TradeStatsQuery,
          response: { 200: TradeStats, ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const q = request.query;
        return tradeStatsWire(
          await trades.stats({
            userId: actorOf(request).id,
            venue: q.exchange,
            start: date(q.start_date),
            end: date(q.end_date),
          }),
        );
      },
    );
  };
}
