import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MARKET_ERRORS_NOTE, tags } from '../common.schemas.ts';
import {
  ActivityResponse,
  HeatmapQuery,
  HeatmapResponse,
  MoversQuery,
  MoversResponse,
  StatsResponse,
  TopQuery,
  TopResponse,
  TRENDING_RULE,
  TrendingQuery,
  TrendingResponse,
  VolumeDistributionResponse,
} from '../overview.schemas.ts';
import type { OverviewService } from '../overview.service.ts';
import {
  activityWire,
  heatmapWire,
  moversWire,
  statsWire,
  topWire,
  trendingWire,
  volumeDistributionWire,
} from '../overview.wire.ts';
import { marketErrors, serialisingOnce } from './responses.ts';

const FROM_TICKERS = 'Computed from Binance 24 h tickers of trading pairs (one cached call, about 5 s).';

export function overviewRoutes(deps: { overview: OverviewService }): FastifyPluginAsyncTypebox {
  const { overview } = deps;
  return async function routes(app) {
    const sendTop = serialisingOnce(topWire);
    const sendStats = serialisingOnce(statsWire);
    const sendMovers = serialisingOnce(moversWire);
    const sendHeatmap = serialisingOnce(heatmapWire);
    const sendDistribution = serialisingOnce(volumeDistributionWire);
    const sendActivity = serialisingOnce(activityWire);
    const sendTrending = serialisingOnce(trendingWire);

    app.get(
      '/api/v1/market/top',
      {
        schema: {
          tags,
          operationId: 'getTopAssets',
          summary: 'Top assets by market cap',
          description:
            'CoinGecko /coins/markets in market-cap order, `limit` as per_page; ' +
            `cached 60 s. ${MARKET_ERRORS_NOTE}`,
          querystring: TopQuery,
          response: { 200: TopResponse, ...marketErrors({ params: true }) },
        },
      },
      async (request, reply) => sendTop(reply, await overview.top(request.query.limit ?? 100)),
    );

    app.get(
      '/api/v1/market/stats',
      {
        schema: {
          tags,
          operationId: 'getMarketStats',
          summary: 'Global market figures and venue aggregates',
          description: `CoinGecko /global (cached 5 min) and aggregates of Binance 24 h tickers. ${MARKET_ERRORS_NOTE}`,
          response: { 200: StatsResponse, ...marketErrors({ params: false }) },
        },
      },
      async (_request, reply) => sendStats(reply, await overview.stats()),
    );

    app.get(
      '/api/v1/market/movers',
      {
        schema: {
          tags,
          operationId: 'getMovers',
          summary: 'Top gainers and losers over 24 h',
          description:
            `${FROM_TICKERS} Gainers are pairs up over 24 h, largest rise first; losers pairs down, largest fall ` +
            `first; only pairs traded in 24 h. ${MARKET_ERRORS_NOTE}`,
          querystring: MoversQuery,
          response: { 200: MoversResponse, ...marketErrors({ params: true }) },
        },
      },
      async (request, reply) => sendMovers(reply, await overview.movers(request.query.limit ?? 10)),
    );

    app.get(
      '/api/v1/market/heatmap',
      {
        schema: {
          tags,
          operationId: 'getHeatmap',
          summary: 'Market heatmap: assets with 24 h change and size',
          description:
            `${FROM_TICKERS} One tile per USDT pair: colour by 24 h change, size by 24 h quote volume in USDT; ` +
            `the largest \`limit\`. ${MARKET_ERRORS_NOTE}`,
          querystring: HeatmapQuery,
          response: { 200: HeatmapResponse, ...marketErrors({ params: true }) },
        },
      },
      async (request, reply) => sendHeatmap(reply, await overview.heatmap(request.query.limit ?? 50)),
    );

    app.get(
      '/api/v1/market/volume-distribution',
      {
        schema: {
          tags,
          operationId: 'getVolumeDistribution',
          summary: 'Share of 24 h quote volume by asset',
          description:
            `${FROM_TICKERS} Quote volumes are valued in USDT at the quote asset's USDT price; pairs whose quote ` +
            `asset has none are counted in \`unpriced_pairs\`. ${MARKET_ERRORS_NOTE}`,
          response: { 200: VolumeDistributionResponse, ...marketErrors({ params: false }) },
        },
      },
      async (_request, reply) => sendDistribution(reply, await overview.volumeDistribution()),
    );

    app.get(
      '/api/v1/market/activity',
      {
        schema: {
          tags,
          operationId: 'getTradingActivity',
          summary: 'Trading activity: trade counts and volume',
          description: `${FROM_TICKERS} ${MARKET_ERRORS_NOTE}`,
          response: { 200: ActivityResponse, ...marketErrors({ params: false }) },
        },
      },
      async (_request, reply) => sendActivity(reply, await overview.activity()),
    );

    app.get(
      '/api/v1/market/trending',
      {
        schema: {
          tags,
          operationId: 'getTrending',
          summary: 'Trending pairs',
          description: `${FROM_TICKERS} Ranking: ${TRENDING_RULE}. ${MARKET_ERRORS_NOTE}`,
          querystring: TrendingQuery,
          response: { 200: TrendingResponse, ...marketErrors({ params: true }) },
        },
      },
      async (request, reply) => sendTrending(reply, await overview.trending(request.query.limit ?? 20)),
    );
  };
}
