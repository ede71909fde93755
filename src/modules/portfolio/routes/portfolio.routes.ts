import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { bearerSecurity, Detail, errorResponses, ValidationError } from '../../../platform/http/schemas.ts';
import {
  History,
  HistoryQuery,
  RealizedCsv,
  RealizedCsvQuery,
  Summary,
  SummaryQuery,
  tags,
} from '../portfolio.schemas.ts';
import type { PortfolioService } from '../portfolio.service.ts';
import { historyWire, summaryWire } from '../portfolio.wire.ts';

const security = bearerSecurity;

export function portfolioRoutes(deps: { service: PortfolioService; guards: Guards }): FastifyPluginAsyncTypebox {
  const { service, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/portfolio/summary',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getPortfolioSummary',
          summary: 'What your holdings are worth, what they cost and what you made',
          description:
            'Holdings are your latest synced balances on every venue (`exchange` keeps one), valued ' +
            'at the last price in `quote` (the quote itself at 1). Cost basis is FIFO per asset over ' +
            'your stored trades: a buy opens a lot whose cost includes its fee; a sell closes the ' +
            'oldest lots first, its proceeds net of its fee; a fee paid in the base asset reduces the ' +
            "amount; a fee in a third currency (BNB) is valued at the fill's time. Units held beyond " +
            "every lot are costed at today's price. Figures are exact decimals rounded at the end " +
            '(amounts 8 decimals, money 2) and every total is the sum of its rows. A quote the venue ' +
            'prices in no pair is a 422 (docs/decisions/150-153).',
          querystring: SummaryQuery,
          response: { 200: Summary, ...errorResponses(401, 403, 503) },
        },
      },
      async (request) => summaryWire(await service.summary(actorOf(request).id, request.query)),
    );

    app.get(
      '/api/portfolio/history',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getPortfolioHistory',
          summary: 'What your portfolio was worth over time, and its returns',
          description:
            'One point per interval boundary of the window (UTC), the last one now when the window ends now. ' +
            'The amounts held then are worked back from your latest balances through the trades and transfers ' +
            'since; each is valued at the close of the candle that ended then. Candles are stored once closed, ' +
            'so asking again asks the venue nothing. `net_deposits` is cumulative. `twr` chains each ' +
            "period's growth with the period's flows taken out (counted at its end); `mwr` is the XIRR of " +
            'the first value, the flows and the last value (docs/decisions/154). A window whose start is not ' +
            'before its end, or of more than 1000 points, is a 422.',
          querystring: HistoryQuery,
          response: { 200: History, ...errorResponses(401, 403, 503) },
        },
      },
      async (request) => historyWire(await service.history(actorOf(request).id, request.query)),
    );

    app.get(
      '/api/portfolio/realized.csv',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'downloadRealizedCsv',
          summary: 'Your closed lot parts (CSV)',
          description:
            'One row per closed lot part, FIFO, valued in `quote`, in the order they closed. A ' +
            'neutral record, not a tax report.',
          querystring: RealizedCsvQuery,
          response: {
            200: { description: 'The CSV file.', content: { 'text/csv': { schema: RealizedCsv } } },
            401: Detail,
            403: Detail,
            422: ValidationError,
            503: Detail,
          },
        },
      },
      async (request, reply) => {
        const csv = await service.realizedCsv(actorOf(request).id, request.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="realized.csv"')
          .send(csv);
      },
    );
  };
}
