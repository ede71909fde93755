// Every piece of market data the operations use, each behind its cache policy. One upstream call
// feeds many operations: all 24 h tickers serve ticker, movers, heatmap, volume distribution,
// activity, trending and stats; all prices serve the price operations when the stream is down.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../../platform/clock.ts';
import { notFound } from '../../platform/http/errors.ts';
import { withBudgetCaller, withBudgetShare } from '../../platform/venue-budget/venue-budget.ts';
import type { AssetMarketSource, SpotMarketSource } from './adapters/market-source.ts';
import { mostRecentCandles, type RecentCandles } from './candle-paging.domain.ts';
import { INTERVAL_MS, candleTtlMs, type Interval } from './intervals.domain.ts';
import { quoteRates } from './rankings.domain.ts';
import { indexSymbols, resolveSymbol, type SymbolIndex } from './symbols.domain.ts';
import type { CachePolicy, MarketCache, Served } from './market-cache.ts';
import type { Candle, PairTicker, SymbolInfo, Ticker24h } from './market.types.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** TTLs and stale bounds (docs/decisions/041). */
const POLICIES = {
  symbols: { ttlMs: HOUR, staleMs: 24 * HOUR },
  tickers: { ttlMs: 5 * SECOND, staleMs: 2 * MINUTE },
  prices: { ttlMs: 5 * SECOND, staleMs: 2 * MINUTE },
  orderBook: { ttlMs: 2 * SECOND, staleMs: 30 * SECOND },
  candleStaleMs: 15 * MINUTE,
  /** A window whose candles have all closed never changes. */
  closedRange: { ttlMs: HOUR, staleMs: 24 * HOUR },
  topAssets: { ttlMs: MINUTE, staleMs: 30 * MINUTE },
  globalFigures: { ttlMs: 5 * MINUTE, staleMs: HOUR },
} satisfies Record<string, CachePolicy | number>;

/**
 * Loads whose cache keys the caller chooses (a pair's candles, a window's candles, a pair's book) are
 * admitted only while the venue's minute stays within this share of its cap: however many keys an
 * anonymous caller makes up, the rest of the minute stays for users' syncs and orders (decision 741).
 */
export const CALLER_KEYED_SHARE = 0.5;

/**
 * Who asks, in a request whose loads are charged to its caller: the client's address (clientKey), set by
 * the routes that serve caller-keyed data (decision 1190). Outside such a request (jobs, the paper engine,
 * the portfolio) no one is charged but the venue's minute.
 */
export const marketCaller = new AsyncLocalStorage<string>();

/**
 * A caller-keyed load: within CALLER_KEYED_SHARE of the minute, and charged to the asking caller's share of
 * it too (VENUE_USER_SHARE_PERCENT, as a user's calls are), so that one address cannot take the whole half
 * and leave every other caller's new charts and books refused (decision 1190).
 */
const callerKeyed =
  <T>(load: () => Promise<T>) =>
  () => {
    const caller = marketCaller.getStore();
    return withBudgetShare(CALLER_KEYED_SHARE, caller === undefined ? load : () => withBudgetCaller(caller, load));
  };

/**
 * How long the shared cache keeps an entry under a key the caller chose (a pair's candles, a window, a
 * book). Admitted at most half of the venue's minute, such entries written over a day filled Redis without
 * bound (a closed window was kept 24 h): kept a minute, they hold at most what two budget minutes can load
 * (decision 748). This process still holds its newest ones (decision 744) and serves them stale.
 */
export const CALLER_KEYED_KEEP_MS = MINUTE;

/** Klines fetched per (symbol, interval); ohlc answers the newest `limit` of them. */
const CANDLES_HELD = 1000;
/** CoinGecko's largest page, one call whatever its size: every `/market/top` limit is sliced from it. */
export const TOP_ASSETS_HELD = 250;
/** Order-book levels fetched per symbol; Binance charges the same weight up to 100. */
const BOOK_LEVELS = 100;

export function createMarketData(deps: {
  spot: SpotMarketSource;
  assets: AssetMarketSource;
  store: MarketCache;
  clock: Clock;
}) {
  const { spot, assets, store, clock } = deps;

  const indexOf = (list: SymbolInfo[]) => store.derive('symbol-index', [list], () => indexSymbols(list));

  async function symbolIndex(): Promise<{ served: Served<SymbolInfo[]>; index: SymbolIndex }> {
    const served = await store.get('symbols', POLICIES.symbols, () => spot.symbols());
    return { served, index: indexOf(served.value) };
  }

  return {
    symbolIndex,
    derive: store.derive,

    /** The listed symbol an input names (BTCUSDT, BTC/USDT, BTC-USDT, any case), or 404. */
    async resolve(input: string): Promise<SymbolInfo> {
      const { index } = await symbolIndex();
      const found = resolveSymbol(index, input);
      if (!found) throw notFound(`Unknown symbol: ${input}`);
      return found;
    },

    /** 24 h tickers of the trading pairs, with base/quote, and the USDT value of each quote asset. */
    async pairTickers() {
      // Both fresh in this process (the usual case): no waiting on anything.
      const heldSymbols = store.peek<SymbolInfo[]>('symbols', POLICIES.symbols);
      const heldTickers = store.peek<Ticker24h[]>('tickers', POLICIES.tickers);
      const [symbols, tickers] =
        heldSymbols && heldTickers
          ? [heldSymbols, heldTickers]
          : await Promise.all([
              store.get('symbols', POLICIES.symbols, () => spot.symbols()),
              store.get('tickers', POLICIES.tickers, () => spot.tickers()),
            ]);
      const index = indexOf(symbols.value);
      const pairs = store.derive('pair-tickers', [symbols.value, tickers.value], () => {
        const rows: PairTicker[] = [];
        for (const ticker of tickers.value) {
          const info = index.bySymbol.get(ticker.symbol);
          if (info?.status === 'TRADING') rows.push({ ...ticker, base: info.base, quote: info.quote });
        }
        return { rows, bySymbol: new Map(rows.map((r) => [r.symbol, r])), rates: quoteRates(rows) };
      });
      return { served: tickers, ...pairs };
    },

    prices: () => store.get('prices', POLICIES.prices, () => spot.prices()),

    /** The newest candles of a pair (up to 1000), cached by interval. */
    candles(symbol: string, interval: Interval): Promise<Served<Candle[]>> {
      return store.get(
        `candles:${symbol}:${interval}`,
        { ttlMs: candleTtlMs(interval), staleMs: POLICIES.candleStaleMs, keepMs: CALLER_KEYED_KEEP_MS },
        callerKeyed(() => spot.klines(symbol, interval, { limit: CANDLES_HELD })),
      );
    },

    /** The most recent `limit` candles opening within [start, end], paging upstream 1000 at a time. */
    candleRange(
      symbol: string,
      interval: Interval,
      start: number,
      end: number,
      limit: number,
    ): Promise<Served<RecentCandles>> {
      // A calendar month can last 31 days, longer than the 28 that INTERVAL_MS assumes.
      const longest = interval === '1M' ? 31 * 24 * HOUR : INTERVAL_MS[interval];
      const closed = end + longest < clock.now().getTime();
      const policy = closed ? POLICIES.closedRange : { ttlMs: candleTtlMs(interval), staleMs: POLICIES.candleStaleMs };
      return store.get(
        `candle-range:${symbol}:${interval}:${start}:${end}:${limit}`,
        { ...policy, keepMs: CALLER_KEYED_KEEP_MS },
        callerKeyed(() =>
          mostRecentCandles(
            (endTime, want) => spot.klines(symbol, interval, { endTime, limit: want }),
            { start, end },
            limit,
            INTERVAL_MS[interval],
          ),
        ),
      );
    },

    orderBook: (symbol: string) =>
      store.get(
        `book:${symbol}`,
        { ...POLICIES.orderBook, keepMs: CALLER_KEYED_KEEP_MS },
        callerKeyed(() => spot.orderBook(symbol, BOOK_LEVELS)),
      ),

    /**
     * The top TOP_ASSETS_HELD assets by market cap: one call and one key for every `limit`, which callers
     * slice (decision 743); a key per limit let one caller make 250 CoinGecko calls a minute.
     */
    topAssets: () => store.get('top', POLICIES.topAssets, () => assets.topAssets(TOP_ASSETS_HELD)),

    globalFigures: () => store.get('global', POLICIES.globalFigures, () => assets.globalFigures()),
  };
}

export type MarketData = ReturnType<typeof createMarketData>;
