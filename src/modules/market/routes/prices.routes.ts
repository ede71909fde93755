import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MARKET_ERRORS_NOTE, tags } from '../common.schemas.ts';
import {
  LivePricesQuery,
  LivePricesResponse,
  PriceParams,
  PriceQuery,
  PriceResponse,
  PricesQuery,
  PricesResponse,
  SymbolsResponse,
  TickerQuery,
  TickerResponse,
} from '../prices.schemas.ts';
import type { PairService } from '../pairs.service.ts';
import type { PriceService } from '../prices.service.ts';
import { livePricesWire, pricesWire, priceWire, symbolsWire, tickerWire } from '../market.wire.ts';
import { marketErrors, serialisingOnce } from './responses.ts';

export function priceRoutes(deps: { prices: PriceService; pairs: PairService }): FastifyPluginAsyncTypebox {
  const { prices, pairs } = deps;
  return async function routes(app) {
    const sendTicker = serialisingOnce(tickerWire);
    const sendSymbols = serialisingOnce(symbolsWire);

    app.get(
      '/api/v1/market/ticker',
      {
        schema: {
          tags,
          operationId: 'getTicker',
          summary: '24 h tickers or last prices',
          description:
            'With `symbols`: those pairs, in that order (`limit` does not apply). Without: the `limit` ' +
            `pairs with the most 24 h quote volume valued in USDT. Cached about 5 s. ${MARKET_ERRORS_NOTE}`,
          querystring: TickerQuery,
          response: { 200: TickerResponse, ...marketErrors({ params: true, symbols: true }) },
        },
      },
      async (request, reply) => sendTicker(reply, await prices.ticker(request.query)),
    );

    app.get(
      '/api/v1/market/prices',
      {
        schema: {
          tags,
          operationId: 'getPrices',
          summary: 'Last prices of the given pairs',
          description:
            "From the live stream's price map while it is live, else from the venue's price list (cached " +
            `about 5 s). ${MARKET_ERRORS_NOTE}`,
          querystring: PricesQuery,
          response: { 200: PricesResponse, ...marketErrors({ params: true, symbols: true }) },
        },
      },
      async (request) => pricesWire(await prices.prices(request.query.symbols)),
    );

    app.get(
      '/api/v1/market/prices/live',
      {
        schema: {
          tags,
          operationId: 'getLivePrices',
          summary: 'Live prices from the WebSocket stream',
          description:
            "Served from the in-memory price map of Binance's mini-ticker stream; while the stream is down (see " +
            '`feed` and `stream`), from the REST price list. Without `symbols`: every pair ' +
            `available. ${MARKET_ERRORS_NOTE}`,
          querystring: LivePricesQuery,
          response: { 200: LivePricesResponse, ...marketErrors({ params: true, symbols: true }) },
        },
      },
      async (request) => livePricesWire(await prices.livePrices(request.query.symbols)),
    );

    app.get(
      '/api/v1/market/prices/:symbol',
      {
        schema: {
          tags,
          operationId: 'getPrice',
          summary: 'Last price of one pair',
          description: `An unlisted symbol answers 404. \`exchange\` is reserved and ignored. ${MARKET_ERRORS_NOTE}`,
          params: PriceParams,
          querystring: PriceQuery,
          response: { 200: PriceResponse, ...marketErrors({ params: true, symbols: true }) },
        },
      },
      async (request) => priceWire(await prices.price(request.params.symbol)),
    );

    app.get(
      '/api/v1/market/symbols',
      {
        schema: {
          tags,
          operationId: 'listSymbols',
          summary: 'Pairs trading on the venue',
          description: `From Binance exchangeInfo, cached 1 h. ${MARKET_ERRORS_NOTE}`,
          response: { 200: SymbolsResponse, ...marketErrors({ params: false }) },
        },
      },
      async (_request, reply) => sendSymbols(reply, await pairs.symbols()),
    );
  };
}
