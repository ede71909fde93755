import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { actorOf } from '../../../platform/auth/actor.ts';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { createHealthService } from '../health.service.ts';
import type { createRoutingService } from '../routing.service.ts';
import { tags } from '../common.schemas.ts';
import {
  Health,
  HealthQuery,
  Info,
  Markets,
  Quotes,
  QuotesQuery,
  RouteQuery,
  RouteResult,
  Supported,
  Ticker,
  TickerQuery,
  VenueHealth,
  VenueParams,
  VenueQuery,
} from '../venues.schemas.ts';
import type { createVenuesService } from '../venues.service.ts';
import {
  healthWire,
  infoWire,
  marketsWire,
  quotesWire,
  routeWire,
  supportedWire,
  tickerWire,
  venueHealthWire,
} from '../venues.wire.ts';

const security = bearerSecurity;
/** Public, and more for an admin's token. */
const optionalBearer = [{}, ...bearerSecurity];
const venueErrors = errorResponses(401, 403, 404, 429, 502, 503, 504);

export function venuesRoutes(deps: {
  venues: ReturnType<typeof createVenuesService>;
  routing: ReturnType<typeof createRoutingService>;
  health: ReturnType<typeof createHealthService>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { venues, routing, health, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;

    app.get(
      '/api/exchange/supported',
      {
        onRequest,
        config: { tokenScope: 'market:read' },
        schema: {
          tags,
          security,
          operationId: 'listSupportedExchanges',
          summary: 'The venues you can connect, with their ccxt capabilities',
          response: { 200: Supported, ...errorResponses(401, 403) },
        },
      },
      async () => supportedWire(await venues.supported()),
    );

    app.get(
      '/api/exchange/:exchange_name/info',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getExchangeInfo',
          summary: "A venue's fees, limits, rate limit, countries and links",
          description:
            "Fees, rate limit, countries and urls come from ccxt's description of the venue (never keys); " +
            'limits from its markets when they load within 3 s.',
          params: VenueParams,
          response: { 200: Info, ...errorResponses(401, 403) },
        },
      },
      async (request) => infoWire(await venues.info(request.params.exchange_name)),
    );

    app.get(
      '/api/exchange/markets',
      {
        onRequest,
        config: { tokenScope: 'market:read' },
        schema: {
          tags,
          security,
          operationId: 'listExchangeMarkets',
          summary: "A venue's spot markets with order minimums (cached for an hour)",
          querystring: VenueQuery,
          response: { 200: Markets, ...venueErrors },
        },
      },
      async (request) => marketsWire(request.query.exchange, await venues.markets(request.query.exchange)),
    );

    app.get(
      '/api/exchange/ticker',
      {
        onRequest,
        config: { tokenScope: 'market:read' },
        schema: {
          tags,
          security,
          operationId: 'getExchangeTicker',
          summary: "A pair's 24 h ticker on a venue",
          querystring: TickerQuery,
          response: { 200: Ticker, ...venueErrors },
        },
      },
      async (request) =>
        tickerWire(
          request.query.exchange,
          await venues.ticker(request.query.exchange, request.query.symbol, actorOf(request).id),
        ),
    );

    app.get(
      '/api/exchange/quotes',
      {
        onRequest,
        config: { tokenScope: 'market:read' },
        schema: {
          tags,
          security,
          operationId: 'listExchangeQuotes',
          summary: 'The quote currencies a base trades against on a venue, most liquid first',
          querystring: QuotesQuery,
          response: { 200: Quotes, ...venueErrors },
        },
      },
      async (request) =>
        quotesWire(
          await venues.quotes(
            request.query.exchange,
            request.query.base,
            request.query.current_quote,
            actorOf(request).id,
          ),
        ),
    );

    app.get(
      '/api/exchange/route',
      {
        onRequest,
        config: { tokenScope: 'market:read' },
        schema: {
          tags,
          security,
          operationId: 'findBestRoute',
          summary: 'Where buying base with quote is cheapest after fees',
          description:
            'Asks every venue at once, each for at most 3 s; venues that cannot be asked are listed in ' +
            "`unavailable` with the reason, venues below the order's size in `excluded`.",
          querystring: RouteQuery,
          response: { 200: RouteResult, ...errorResponses(401, 403) },
        },
      },
      async (request) =>
        routeWire(
          await routing.route({
            base: request.query.base,
            quote: request.query.quote,
            size: request.query.size,
            quoteSize: request.query.quote_size,
            user: actorOf(request).id,
          }),
        ),
    );

    // Public; a fresh check spends venue weight every user's syncs share, so only an admin's
    // force_refresh is honoured: anyone else gets the last minute's answer.
    const byAdmin = (request: FastifyRequest, wanted: boolean) => wanted && request.user?.role === 'admin';
    const forceNote =
      ' `force_refresh` is honoured for a signed-in admin (bearer token) only; for anyone else it is ignored.';

    app.get(
      '/api/exchange/health',
      {
        onRequest: guards.identify,
        config: { tokenScope: 'market:read' },
        schema: {
          tags,
          operationId: 'getExchangesHealth',
          summary: 'Health of every venue (public; checked at most once a minute)',
          description: `Answered from the last minute's check.${forceNote}`,
          security: optionalBearer,
          querystring: HealthQuery,
          response: { 200: Health, ...errorResponses() },
        },
      },
      async (request) => healthWire(await health.all(byAdmin(request, request.query.force_refresh))),
    );

    app.get(
      '/api/exchange/:exchange_name/health',
      {
        onRequest: guards.identify,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          operationId: 'getExchangeHealth',
          summary: 'Health of one venue (public; checked at most once a minute)',
          description: `Answered from the last minute's check.${forceNote}`,
          security: optionalBearer,
          params: VenueParams,
          querystring: HealthQuery,
          response: { 200: VenueHealth, ...errorResponses() },
        },
      },
      async (request) =>
        venueHealthWire(await health.one(request.params.exchange_name, byAdmin(request, request.query.force_refresh))),
    );
  };
}
