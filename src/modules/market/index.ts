// Market data (public, GET /api/v1/market/...): the sources are chosen here from config, once.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { MarketDeps } from './market.deps.ts';
import { createBinanceLiveFeed } from './adapters/binance-live-feed.ts';
import { createBinanceMarketSource, describeBinanceError } from './adapters/binance-market-source.ts';
import { coingeckoKeyHeaders, createCoinGeckoSource, describeCoinGeckoError } from './adapters/coingecko-source.ts';
import {
  noLiveFeed,
  type AssetMarketSource,
  type LivePriceFeed,
  type SpotMarketSource,
} from './adapters/market-source.ts';
import { createSimulatedAssetSource, createSimulatedSpotSource } from './adapters/simulated-market-source.ts';
import { shapes, UpstreamClient } from './adapters/upstream-client.ts';
import { createMarketCache } from './market-cache.ts';
import { createMarketData } from './market-data.ts';
import { candleRoutes } from './routes/candles.routes.ts';
import { overviewRoutes } from './routes/overview.routes.ts';
import { priceRoutes } from './routes/prices.routes.ts';
import { statusRoutes } from './routes/status.routes.ts';
import { priceStreamRoutes } from './routes/stream.routes.ts';
import { createCandleService } from './candles.service.ts';
import { createOverviewService } from './overview.service.ts';
import { createPairService } from './pairs.service.ts';
import { createPriceStream } from './price-stream.service.ts';
import { createPriceStreamMetrics } from './stream-metrics.ts';
import { createPriceService } from './prices.service.ts';
import { createStatusService } from './status.service.ts';
import { createProbeService } from './probe.service.ts';
import { createQuotesService } from './quotes.service.ts';
import { createTradingService } from './trading.service.ts';

const MICRO_CACHE_MS = 1_000;

export type { MarketHealth } from './status.service.ts';

export type { MarketProbe } from './probe.service.ts';

function createSources(
  platform: Platform,
  venueAccess: MarketDeps['venueAccess'],
): {
  spot: SpotMarketSource;
  assets: AssetMarketSource;
  live: LivePriceFeed;
  /** Binance's cheapest call; null for the simulated source, which has nothing to reach. */
  ping: (() => Promise<unknown>) | null;
} {
  const { config, clock, logger } = platform;
  const settings = config.market;
  if (settings.source === 'simulated') {
    return {
      spot: createSimulatedSpotSource(clock),
      assets: createSimulatedAssetSource(clock),
      live: noLiveFeed,
      ping: null,
    };
  }
  const common = { clock, timeoutMs: settings.upstreamTimeoutMs };
  const binance = new UpstreamClient({
    ...common,
    name: 'Binance',
    baseUrl: settings.binanceApiUrl,
    // The guard the exchange module's calls to Binance go through as well: one per venue and IP.
    venue: venueAccess('binance'),
    describeError: describeBinanceError,
  });
  // CoinGecko is called by this module alone: its guard counts one weight a call, so only its breaker holds.
  const coingeckoDoor = platform.egress.venue('coingecko');
  coingeckoDoor.budget.describe({ label: 'CoinGecko' });
  const coingecko = new UpstreamClient({
    ...common,
    name: 'CoinGecko',
    venue: coingeckoDoor,
    baseUrl: settings.coingeckoApiUrl,
    headers: coingeckoKeyHeaders(settings.coingeckoApiKey, settings.coingeckoApiPlan),
    describeError: describeCoinGeckoError,
  });
  return {
    spot: createBinanceMarketSource(binance),
    assets: createCoinGeckoSource(coingecko),
    live: settings.liveStream ? createBinanceLiveFeed({ baseUrl: settings.binanceWsUrl, clock, logger }) : noLiveFeed,
    // Through the same client as the data calls, so the weight budget and an open breaker hold.
    ping: () => binance.get('/api/v3/ping', shapes.record),
  };
}

export function createMarketModule(platform: Platform, deps: MarketDeps) {
  const { config, cache, clock, logger } = platform;
  const { spot, assets, live, ping } = createSources(platform, deps.venueAccess);
  // The longest one load takes: ohlc-range's limit of 2000 candles is two upstream pages.
  const longestLoadMs = 2 * config.market.upstreamTimeoutMs + 500;
  // A waiting instance answers within one upstream timeout and a second (decision 103).
  const store = createMarketCache({
    cache,
    clock,
    lockTtlMs: longestLoadMs,
    waitMs: config.market.upstreamTimeoutMs + 500,
  });
  const data = createMarketData({ spot, assets, store, clock });
  const prices = createPriceService({ data, live, clock, source: spot.name });
  // Read at scrape time only, once the hub below exists.
  const streamMetrics = createPriceStreamMetrics(platform.metrics, {
    subscribers: () => priceStream.subscribers(),
    symbolSets: () => priceStream.symbolSets(),
  });
  const priceStream = createPriceStream({
    data,
    prices,
    live,
    logger,
    restSource: spot.name === 'simulated' ? 'simulated' : 'rest',
    metrics: streamMetrics,
  });
  const pairs = createPairService({ data, clock, source: spot.name });
  const candles = createCandleService({ data, clock, source: spot.name });
  const overview = createOverviewService({ data, clock, logger, spotSource: spot.name, assetSource: assets.name });
  const status = createStatusService({
    spot,
    assets,
    live,
    store,
    clock,
    settings: { source: config.market.source, liveStream: config.market.liveStream },
  });
  const quotes = createQuotesService({ data, clock });
  const trading = createTradingService({ data, live, source: spot.name });
  const probe = createProbeService({ ping });

  const start = () => live.start();
  async function stop(): Promise<void> {
    priceStream.stop();
    await live.stop();
  }

  return {
    name: 'market',
    /** The live price stream runs while the server listens. */
    hooks: { listening: start, closed: stop },
    async routes(app: FastifyInstance) {
      // Market answers are the same for every caller and cached upstream for seconds anyway: a
      // one-second micro-cache in front of the router serves hot URLs at a fraction of the cost.
      app.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), microCacheMs: MICRO_CACHE_MS } as typeof route.config;
      });
      await app.register(priceRoutes({ prices, pairs }));
      await app.register(candleRoutes({ candles, pairs }));
      await app.register(overviewRoutes({ overview }));
      await app.register(statusRoutes({ service: status }));
      // Answered on a connection of its own for as long as it lasts; never micro-cached (it is hijacked).
      await app.register(priceStreamRoutes({ stream: priceStream, sse: deps.sse }));
    },
    /** The most recent candles (up to `limit`, default 1000, max 2000) opening within [start, end], oldest first. */
    candles: candles.candles,
    /** For the portfolio: the listed pairs with their last prices, closed candles, an hour's close. */
    quotes,
    /** For the paper engine (docs/decisions/215): pairs, books and live ticks. */
    trading,
    /** The report GET /api/v1/market/status answers. */
    status: status.status,
    /** Whether Binance answers, for the dashboard; null with the simulated source. Never throws. */
    probe: probe.probe,
    /** Opens the live price stream; call when the server starts listening. */
    start,
    stop,
  };
}

export type MarketModule = ReturnType<typeof createMarketModule>;

/** What the module contributes to the app and the database (decision 230). */
export { MARKET_MODULE } from './market.module.ts';
