// Market data (public, GET /api/v1/market/...): the sources are chosen here from config, once.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../platform/http/errors.ts';
import type { Platform } from '../../platform/platform.ts';
import type { MarketDeps } from './market.deps.ts';
import { guardedFetch } from '../../platform/venue-budget/guarded-fetch.ts';
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
import type { SymbolInfo } from './market.types.ts';

const MICRO_CACHE_MS = 1_000;
const HOUR_MS = 3_600_000;

export type { MarketHealth } from './status.service.ts';

/** The answer of `probe()`, like the tracker's health: whether Binance answered, how fast, or why not. */
export interface MarketProbe {
  reachable: boolean;
  latencyMs: number | null;
  detail: string | null;
}

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
  const coingeckoBudget = platform.venueBudgets.venue('coingecko');
  coingeckoBudget.describe({ label: 'CoinGecko' });
  const coingecko = new UpstreamClient({
    ...common,
    name: 'CoinGecko',
    venue: { budget: coingeckoBudget, fetch: guardedFetch(coingeckoBudget, platform.fetch) },
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
    /**
     * For the portfolio: the listed pairs (BASE/QUOTE → symbol) with every symbol's last price, and
     * the close of the hourly candle that contains an instant (null when the venue has none).
     */
    quotes: {
      async last(): Promise<{ byPair: ReadonlyMap<string, SymbolInfo>; prices: ReadonlyMap<string, string> }> {
        const [{ index }, served] = await Promise.all([data.symbolIndex(), data.prices()]);
        const prices = data.derive(
          'portfolio-last-prices',
          [served.value],
          () => new Map(served.value.map((p) => [p.symbol, p.price])),
        );
        return { byPair: index.byPair, prices };
      },
      /**
       * The candles of `interval` (1h or 1d) opening within [start, end] that have closed, oldest first (up to 2000).
       */
      async closed(
        symbol: string,
        interval: '1h' | '1d',
        start: number,
        end: number,
      ): Promise<{ openTime: number; close: string }[]> {
        const served = await data.candleRange(symbol, interval, start, end, 2000);
        const now = clock.now().getTime();
        return served.value.candles
          .filter((c) => c.closeTime < now)
          .map((c) => ({ openTime: c.openTime, close: c.close }));
      },
      async closeAt(symbol: string, at: Date): Promise<string | null> {
        const open = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
        const served = await data.candleRange(symbol, '1h', open, open, 1);
        return served.value.candles.find((c) => c.openTime === open)?.close ?? null;
      },
    },
    /**
     * For the paper engine (docs/decisions/215): the venue's pair a unified symbol (BTC/USDT) names
     * while it trades, its order book (100 levels, cached 2 s, through the venue budget), and the live
     * ticks GET /api/v1/market/stream is fed from, with whether the stream serves prices now.
     */
    trading: {
      /** `binance`, or `simulated` (MARKET_DATA_SOURCE): where books and prices come from. */
      source: spot.name,
      async pair(symbol: string): Promise<{ symbol: string; base: string; quote: string } | undefined> {
        const { index } = await data.symbolIndex();
        const info = index.byPair.get(symbol.trim().toUpperCase());
        return info?.status === 'TRADING' ? { symbol: info.symbol, base: info.base, quote: info.quote } : undefined;
      },
      async book(symbol: string): Promise<{ bids: readonly [string, string][]; asks: readonly [string, string][] }> {
        const { bids, asks } = (await data.orderBook(symbol)).value;
        return { bids, asks };
      },
      onTicks: (listener: (ticks: readonly { symbol: string; price: string }[]) => void) => live.onTicks(listener),
      streaming: () => live.state().live,
    },
    /** The report GET /api/v1/market/status answers. */
    status: status.status,
    /**
     * Whether Binance answers, for the dashboard: `GET /api/v3/ping` (weight 1), never throws. Null
     * with the simulated source. An open breaker (after a 429 or 418) answers unreachable, uncalled.
     */
    async probe(): Promise<MarketProbe | null> {
      if (!ping) return null;
      const started = performance.now();
      try {
        await ping();
        return { reachable: true, latencyMs: Math.round((performance.now() - started) * 100) / 100, detail: null };
      } catch (error) {
        const detail =
          error instanceof AppError && typeof error.detail === 'string' ? error.detail : 'Binance could not be checked';
        return { reachable: false, latencyMs: null, detail };
      }
    },
    /** Opens the live price stream; call when the server starts listening. */
    start,
    stop,
  };
}

export type MarketModule = ReturnType<typeof createMarketModule>;
