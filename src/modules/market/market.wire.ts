// The market answers on the wire: the services return the venue's data (decimal strings, ms times)
// with its freshness, and the routes answer it through these mappers, each typed by its response
// schema. Cached answers keep their identity while neither data nor age changes, and the routes keep
// the JSON of each (routes/responses.ts), so a mapper runs once per distinct answer, not per request;
// the body of cached data is mapped once per data (`once`), and only the freshness once a second.
import type { Static } from 'typebox';
import type { Freshness, MarketAnswer } from './answers.ts';
import type { CandleSeries, CandleWindow } from './candles.service.ts';
import type { CandleRow, OhlcRangeResponse, OhlcResponse, OrderBookResponse } from './candles.schemas.ts';
import type { Candle, PairTicker } from './market.types.ts';
import type { BookView, SymbolListing } from './pairs.service.ts';
import type {
  LivePricesResponse,
  PriceEntry,
  PriceResponse,
  PricesResponse,
  SymbolsResponse,
  TickerResponse,
} from './prices.schemas.ts';
import type { LivePrices, PriceAnswer, PricedPair, TickerAnswer } from './prices.service.ts';
import type { StatusResponse } from './status.schemas.ts';
import type { MarketStatus } from './status.service.ts';

type FreshnessFields = Pick<PricesResponse, 'source' | 'stale' | 'age_seconds' | 'updated_at'>;

/** The venue's decimal string as a JSON number. */
export const num = (value: string | number): number => Number(value);

export const isoMs = (ms: number): string => new Date(ms).toISOString();

const isoAt = (ms: number | null): string | null => (ms === null ? null : isoMs(ms));

let lastIso = { ms: NaN, text: '' };
/** Most answers in a row share their fetch time; format it once. */
function isoOnce(ms: number): string {
  if (lastIso.ms !== ms) lastIso = { ms, text: isoMs(ms) };
  return lastIso.text;
}

/** `map`, computed once per value object: cached data keeps its identity for as long as it holds. */
function once<T extends object, R>(map: (value: T) => R): (value: T) => R {
  const memo = new WeakMap<T, R>();
  return (value) => {
    let mapped = memo.get(value);
    if (mapped === undefined) {
      mapped = map(value);
      memo.set(value, mapped);
    }
    return mapped;
  };
}

function freshnessWire(f: Freshness): FreshnessFields {
  return { source: f.source, stale: f.stale, age_seconds: f.ageSeconds, updated_at: isoOnce(f.updatedAt) };
}

/** The mapper of a cached answer to `R`: its body, mapped once per data, and its freshness. */
export function answerWire<T extends object, R extends FreshnessFields>(
  body: (data: T) => Omit<R, keyof FreshnessFields>,
): (answer: MarketAnswer<T>) => R {
  const bodyOnce = once(body);
  // The body is every field of R but the freshness ones, which come next.
  return (answer) => ({ ...bodyOnce(answer.data), ...freshnessWire(answer.freshness) }) as R;
}

// Prices and tickers

type TickerRow = Static<typeof TickerResponse>[number];

function tickerRow(p: PairTicker): Omit<TickerRow, keyof FreshnessFields> {
  return {
    symbol: p.symbol,
    base: p.base,
    quote: p.quote,
    price: num(p.lastPrice),
    open: num(p.openPrice),
    high: num(p.highPrice),
    low: num(p.lowPrice),
    change: num(p.priceChange),
    change_percent: num(p.priceChangePercent),
    weighted_avg_price: num(p.weightedAvgPrice),
    bid: num(p.bidPrice),
    ask: num(p.askPrice),
    volume: num(p.volume),
    quote_volume: num(p.quoteVolume),
    trades: p.count,
    open_time: isoMs(p.openTime),
    close_time: isoMs(p.closeTime),
  };
}

const tickerRows = once((pairs: readonly PairTicker[]) => pairs.map(tickerRow));

export function tickerWire(answer: TickerAnswer): Static<typeof TickerResponse> {
  const fresh = freshnessWire(answer.freshness);
  if (answer.type === 'price') {
    return answer.data.map((e) => ({ symbol: e.symbol, base: e.base, quote: e.quote, price: num(e.price), ...fresh }));
  }
  return tickerRows(answer.data).map((row) => ({ ...row, ...fresh }));
}

function priceEntryWire(e: PricedPair): PriceEntry {
  return {
    symbol: e.symbol,
    base: e.base,
    quote: e.quote,
    price: num(e.price),
    feed: e.feed,
    updated_at: isoMs(e.updatedAt),
  };
}

const priceMap = (entries: PricedPair[]) => Object.fromEntries(entries.map((e) => [e.symbol, priceEntryWire(e)]));

export function pricesWire(answer: MarketAnswer<PricedPair[]>): PricesResponse {
  return { prices: priceMap(answer.data), count: answer.data.length, ...freshnessWire(answer.freshness) };
}

export function livePricesWire(answer: LivePrices): LivePricesResponse {
  const { stream } = answer;
  return {
    prices: priceMap(answer.data),
    count: answer.data.length,
    feed: answer.feed,
    stream: { status: stream.status, live: stream.live, last_message_at: isoAt(stream.lastMessageAt) },
    ...freshnessWire(answer.freshness),
  };
}

export function priceWire(answer: PriceAnswer): PriceResponse {
  return { ...priceEntryWire(answer.data), exchange: answer.exchange, ...freshnessWire(answer.freshness) };
}

// Pairs and order books

export const symbolsWire = answerWire<SymbolListing, SymbolsResponse>((listing) => ({
  symbols: listing.symbols.map((s) => ({ symbol: s.symbol, base: s.base, quote: s.quote, status: s.status })),
  count: listing.symbols.length,
  quote_assets: listing.quoteAssets,
}));

const levels = (side: [string, string][]) =>
  side.map(([price, quantity]) => ({ price: num(price), quantity: num(quantity) }));

export const orderBookWire = answerWire<BookView, OrderBookResponse>((b) => ({
  symbol: b.pair.symbol,
  base: b.pair.base,
  quote: b.pair.quote,
  depth: b.depth,
  last_update_id: b.lastUpdateId,
  bids: levels(b.bids),
  asks: levels(b.asks),
  best_bid: b.bestBid,
  best_ask: b.bestAsk,
  mid_price: b.midPrice,
  spread: b.spread,
  spread_percent: b.spreadPercent,
  bid_volume: b.bidVolume,
  ask_volume: b.askVolume,
}));

// Candles

function candleRow(c: Candle): CandleRow {
  return {
    open_time: isoMs(c.openTime),
    close_time: isoMs(c.closeTime),
    timestamp: c.openTime,
    open: num(c.open),
    high: num(c.high),
    low: num(c.low),
    close: num(c.close),
    volume: num(c.volume),
    quote_volume: num(c.quoteVolume),
    trades: c.trades,
  };
}

function seriesWire(s: CandleSeries): Omit<OhlcResponse, keyof FreshnessFields> {
  const candles = s.candles.map(candleRow);
  return {
    symbol: s.pair.symbol,
    base: s.pair.base,
    quote: s.pair.quote,
    interval: s.interval,
    candles,
    count: candles.length,
  };
}

export const ohlcWire = answerWire<CandleSeries, OhlcResponse>(seriesWire);

export const ohlcRangeWire = answerWire<CandleWindow, OhlcRangeResponse>((w) => ({
  ...seriesWire(w),
  start: w.start.toISOString(),
  end: w.end.toISOString(),
  limit: w.limit,
  truncated: w.truncated,
}));

// Status

export function statusWire(status: MarketStatus): StatusResponse {
  const stream = status.liveStream;
  return {
    source: status.source,
    status: status.status,
    last_update: isoAt(status.lastUpdate),
    upstreams: Object.fromEntries(
      status.upstreams.map((u) => [
        u.name.toLowerCase(),
        {
          healthy: u.healthy,
          breaker_open: u.breakerOpen,
          breaker_until: isoAt(u.breakerUntil),
          breaker_reason: u.breakerReason,
          // The same breaker in the words this answer used first (decision 174).
          circuit: u.breakerOpen ? 'open' : 'closed',
          open_until: isoAt(u.breakerUntil),
          open_reason: u.breakerReason,
          consecutive_failures: u.consecutiveFailures,
          calls: u.calls,
          failures: u.failures,
          last_success_at: isoAt(u.lastSuccessAt),
          last_failure_at: isoAt(u.lastFailureAt),
          last_error: u.lastError,
          used_weight_1m: u.usedWeight1m,
          weight_limit_1m: u.weightLimit1m,
          weight_budget_1m: u.weightBudget1m,
        },
      ]),
    ),
    live_stream: {
      enabled: stream.enabled,
      status: stream.status,
      live: stream.live,
      serving: stream.live ? 'stream' : 'rest',
      connected_since: isoAt(stream.connectedSince),
      last_message_at: isoAt(stream.lastMessageAt),
      reconnects: stream.reconnects,
      next_attempt_at: isoAt(stream.nextAttemptAt),
      last_error: stream.lastError,
      symbols: stream.symbols,
    },
    caches: status.caches.map((c) => ({
      key: c.key,
      age_seconds: c.ageMs / 1000,
      ttl_seconds: c.ttlMs / 1000,
      fresh: c.fresh,
    })),
  };
}
