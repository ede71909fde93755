import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { createBinanceAccountService } from '../binance-account.service.ts';
import { BinanceVenueQuery, DustAssets, FeeTokenBurn, FeeTokenBurnBody } from '../binance-account.schemas.ts';
import { tags } from '../common.schemas.ts';
import { DEFAULT_VENUE, type BinanceVenue } from '../venues.domain.ts';
import { actorOf } from '../../../platform/auth/actor.ts';
import { dustAssetsWire, feeTokenBurnWire } from '../exchange.wire.ts';

const security = bearerSecurity;
const venueErrors = errorResponses(400, 401, 403, 404, 429, 502, 503, 504);
const venueOf = (value: BinanceVenue | undefined) => value ?? (DEFAULT_VENUE as BinanceVenue);

export function binanceAccountRoutes(deps: {
  account: ReturnType<typeof createBinanceAccountService>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { account, guards } = deps;
  return async function routes(app) {
    const onRequest = guards.requireUser;
    const burnDescription =
      'Global Binance only (GET/POST /sapi/v1/bnbBurn with your binance credential); binanceus has no such ' +
      'setting and answers 400 saying so.';

    app.get(
      '/api/exchange/feetoken-burn',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'getFeeTokenBurn',
          summary: 'Whether spot fees are paid with the fee token (BNB)',
          description: burnDescription,
          querystring: BinanceVenueQuery,
          response: { 200: FeeTokenBurn, ...venueErrors },
        },
      },
      async (request) =>
        feeTokenBurnWire(await account.feeTokenBurn(venueOf(request.query.exchange), actorOf(request))),
    );

    app.post(
      '/api/exchange/feetoken-burn',
      {
        onRequest,
        config: { tokenScope: 'account:write' },
        schema: {
          tags,
          security,
          operationId: 'setFeeTokenBurn',
          summary: 'Pay spot fees with the fee token (BNB), or stop',
          description: burnDescription,
          body: FeeTokenBurnBody,
          response: { 200: FeeTokenBurn, ...venueErrors },
        },
      },
      async (request) =>
        feeTokenBurnWire(
          await account.setFeeTokenBurn(
            venueOf(request.body.exchange),
            request.body.spot_feetoken_burn,
            actorOf(request),
          ),
        ),
    );

    app.get(
      '/api/exchange/dust-assets',
      {
        onRequest,
        config: { tokenScope: 'account:read' },
        schema: {
          tags,
          security,
          operationId: 'listDustAssets',
          summary: 'Small balances convertible into the fee token (BNB)',
          description:
            'binance: POST /sapi/v1/asset/dust-btc; binanceus: GET /sapi/v1/asset/query/dust-assets; with ' +
            'your credential for that venue.',
          querystring: BinanceVenueQuery,
          response: { 200: DustAssets, ...venueErrors },
        },
      },
      async (request) => dustAssetsWire(await account.dustAssets(venueOf(request.query.exchange), actorOf(request))),
    );
  };
}
