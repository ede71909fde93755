// What the market module needs from the outside world, as three capabilities: a spot venue (Binance),
// an asset-market source (CoinGecko) and a live price feed (Binance's WebSocket stream). The real
// adapters and the simulated ones are chosen in one place, `index.ts`, from config.
import type { Interval } from '../intervals.domain.ts';
import type {
  Candle,
  GlobalFigures,
  OrderBook,
  PriceQuote,
  SymbolInfo,
  Ticker24h,
  TopAsset,
  UpstreamUsage,
} from '../market.types.ts';

export interface SpotMarketSource {
  /** Goes into every answer as `source`. */
  readonly name: string;
  symbols(): Promise<SymbolInfo[]>;
  /** 24 h tickers of every symbol. */
  tickers(): Promise<Ticker24h[]>;
  /** Last prices of every symbol. */
  prices(): Promise<PriceQuote[]>;
  /** The newest `limit` (≤ 1000) candles opening at or before `endTime` (default: now), oldest first. */
  klines(symbol: string, interval: Interval, page: { endTime?: number; limit: number }): Promise<Candle[]>;
  orderBook(symbol: string, limit: number): Promise<OrderBook>;
  usage(): UpstreamUsage | null;
}

export interface AssetMarketSource {
  readonly name: string;
  /** Assets by market cap, largest first; `limit` 1..250. */
  topAssets(limit: number): Promise<TopAsset[]>;
  globalFigures(): Promise<GlobalFigures>;
  usage(): UpstreamUsage | null;
}

export interface LiveTick {
  symbol: string;
  price: string;
  /** Event time at the venue, ms. */
  eventTime: number;
}

export type LiveFeedStatus = 'disabled' | 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'stopped';

export interface LiveFeedState {
  status: LiveFeedStatus;
  /** Connected and heard from recently: prices are served from the stream. */
  live: boolean;
  connectedSince: number | null;
  lastMessageAt: number | null;
  reconnects: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  symbols: number;
}

export interface LivePriceFeed {
  start(): void;
  stop(): Promise<void>;
  /** The newest tick of a symbol while the feed is live; undefined otherwise. */
  tick(symbol: string): LiveTick | undefined;
  /** Every symbol's newest tick while the feed is live; empty otherwise. */
  ticks(): Iterable<LiveTick>;
  state(): LiveFeedState;
  /** Calls `listener` with each message's ticks as they arrive; answers the unsubscribe. */
  onTicks(listener: (ticks: readonly LiveTick[]) => void): () => void;
}

/** The feed when the stream is turned off or the source has none. */
export const noLiveFeed: LivePriceFeed = {
  start() {},
  async stop() {},
  tick: () => undefined,
  ticks: () => [],
  onTicks: () => () => {},
  state: () => ({
    status: 'disabled',
    live: false,
    connectedSince: null,
    lastMessageAt: null,
    reconnects: 0,
    nextAttemptAt: null,
    lastError: null,
    symbols: 0,
  }),
};
