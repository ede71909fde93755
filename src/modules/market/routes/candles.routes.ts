import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CALLER_SHARE_NOTE, MARKET_ERRORS_NOTE, tags } from '../common.schemas.ts';
import {
  OhlcQuery,
  OhlcRangeQuery,
  OhlcRangeResponse,
  OhlcResponse,
  OrderBookQuery,
  OrderBookResponse,
} from '../candles.schemas.ts';
import type { CandleService } from '../candles.service.ts';
import type { PairService } from '../pairs.service.ts';
import { ohlcRangeWire, ohlcWire, orderBookWire } from '../market.wire.ts';
import { marketErrors, serialisingOnce } from './responses.ts';
import { marketCaller } from '../market-data.ts';
import { clientKey } from '../../../platform/http/client-address.ts';

export function candleRoutes(deps: { candles: CandleService; pairs: PairService }): FastifyPluginAsyncTypebox {
  const { candles, pairs } = deps;
  return async function routes(app) {
    // These answers load under keys the caller chooses: each load is charged to the client's address as
    // well as to the venue's half minute (decision 1190). A hook with `done`, so the handler runs in it.
    app.addHook('onRequest', (request, _reply, done) => {
      marketCaller.run(`address:${clientKey(request.ip) ?? 'unknown'}`, done);
    });
    const sendOhlc = serialisingOnce(ohlcWire);
    const sendRange = serialisingOnce(ohlcRangeWire);
    const sendBook = serialisingOnce(orderBookWire);

    app.get(
      '/api/v1/market/ohlc',
      {
        schema: {
          tags,
          operationId: 'getOhlc',
          summary: 'Most recent candlesticks of a pair',
          description: `Cached by interval: 5 s for 1m–5m, 15 s for 15m, 30 s for 30m, 60 s from 1h. ${MARKET_ERRORS_NOTE} ${CALLER_SHARE_NOTE}`,
          querystring: OhlcQuery,
          response: { 200: OhlcResponse, ...marketErrors({ params: true, symbols: true, callerShare: true }) },
        },
      },
      async (request, reply) => sendOhlc(reply, await candles.ohlc(request.query)),
    );

    app.get(
      '/api/v1/market/ohlc-range',
      {
        schema: {
          tags,
          operationId: 'getOhlcRange',
          summary: 'Most recent candlesticks within a time window',
          description:
            'Candles whose open time lies in [start, end]; when there are more than `limit`, the most recent ' +
            'ones (`truncated` says so). Pages the venue 1000 candles per call. `end` must be after ' +
            `\`start\` (422 otherwise). ${MARKET_ERRORS_NOTE} ${CALLER_SHARE_NOTE}`,
          querystring: OhlcRangeQuery,
          response: { 200: OhlcRangeResponse, ...marketErrors({ params: true, symbols: true, callerShare: true }) },
        },
      },
      async (request, reply) => sendRange(reply, await candles.ohlcRange(request.query)),
    );

    app.get(
      '/api/v1/market/orderbook',
      {
        schema: {
          tags,
          operationId: 'getOrderBook',
          summary: 'Order book of a pair',
          description:
            '`depth` price levels per side, best first, with spread and side volumes. Cached ' +
            `about 2 s. ${MARKET_ERRORS_NOTE} ${CALLER_SHARE_NOTE}`,
          querystring: OrderBookQuery,
          response: { 200: OrderBookResponse, ...marketErrors({ params: true, symbols: true, callerShare: true }) },
        },
      },
      async (request, reply) => sendBook(reply, await pairs.orderBook(request.query.symbol, request.query.depth ?? 20)),
    );
  };
}
