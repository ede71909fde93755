// The hub behind GET /api/v1/market/stream: one per instance, whatever the number of subscribers.
// Ticks from Binance's WebSocket stream (or, while it is down, from polling the REST price list) are
// throttled per pair (at most one event per 250 ms, the newest price winning), rendered as SSE text
// once, and handed to each subscriber of that pair in one write per batch.
import type { Logger } from 'pino';
import { invalidField } from '../../platform/http/errors.ts';
import { sseEvent } from '../../platform/http/sse.ts';
import type { LivePriceFeed } from './adapters/market-source.ts';
import { resolveSymbol, splitSymbolList } from './symbols.domain.ts';
import type { MarketData } from './market-data.ts';
import type { SymbolInfo } from './market.types.ts';
import { MAX_STREAM_SYMBOLS, type PriceEvent, type PriceSnapshot } from './stream.schemas.ts';
// Its events are wire data (each with its schema), made here by the producing service.
import { isoMs, num } from './market.wire.ts';
import type { PriceService } from './prices.service.ts';

/** Receives SSE text: one or more `price` events. */
type PriceListener = (text: string) => void;

interface PairState {
  price: string;
  lastSentAt: number;
  /** A newer price waiting for its pair's 250 ms to pass. */
  pending?: PriceEvent;
}

interface PriceStreamOptions {
  throttleMs?: number;
  /** How often the REST price list is read while the WebSocket stream is down. */
  pollMs?: number;
}

export function createPriceStream(
  deps: {
    data: MarketData;
    prices: Pick<PriceService, 'quotes'>;
    live: LivePriceFeed;
    logger: Logger;
    restSource: 'rest' | 'simulated';
  },
  options: PriceStreamOptions = {},
) {
  const { data, live, logger, restSource } = deps;
  const throttleMs = options.throttleMs ?? 250;
  const pollMs = options.pollMs ?? 2_000;
  const pairs = new Map<string, PairState>();
  /** Subscribers of every pair, and of named pairs. */
  const everyPair = new Set<PriceListener>();
  const byPair = new Map<string, Set<PriceListener>>();
  let flushTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let polling = false;
  let unsubscribeFeed: (() => void) | undefined;
  const now = () => Date.now();

  const subscribers = () => everyPair.size + byPair.size;
  const wanted = (symbol: string) => everyPair.size > 0 || byPair.has(symbol);

  /** Sends a batch of events: rendered once each, one write per subscriber. */
  function send(events: PriceEvent[]): void {
    if (events.length === 0) return;
    const rendered = events.map((event) => sseEvent('price', event));
    if (everyPair.size > 0) {
      const all = rendered.join('');
      for (const listener of everyPair) listener(all);
    }
    if (byPair.size === 0) return;
    const perListener = new Map<PriceListener, string>();
    events.forEach((event, i) => {
      for (const listener of byPair.get(event.symbol) ?? [])
        perListener.set(listener, (perListener.get(listener) ?? '') + rendered[i]);
    });
    for (const [listener, text] of perListener) listener(text);
  }

  /** Takes new prices; sends those whose pair may speak now and keeps the others for the flush. */
  function offer(events: PriceEvent[], at: number): void {
    const ready: PriceEvent[] = [];
    for (const event of events) {
      const price = String(event.price);
      const state = pairs.get(event.symbol);
      if (!state) {
        pairs.set(event.symbol, { price, lastSentAt: wanted(event.symbol) ? at : 0 });
        if (wanted(event.symbol)) ready.push(event);
        continue;
      }
      if (state.price === price && !state.pending) continue;
      state.price = price;
      if (!wanted(event.symbol)) continue;
      if (at - state.lastSentAt >= throttleMs) {
        state.lastSentAt = at;
        state.pending = undefined;
        ready.push(event);
      } else {
        state.pending = event;
        scheduleFlush(state.lastSentAt + throttleMs - at);
      }
    }
    send(ready);
  }

  function scheduleFlush(delay: number): void {
    if (flushTimer) return;
    flushTimer = setTimeout(flush, Math.max(1, delay));
    flushTimer.unref();
  }

  function flush(): void {
    flushTimer = undefined;
    const at = now();
    const ready: PriceEvent[] = [];
    let next = Infinity;
    for (const state of pairs.values()) {
      if (!state.pending) continue;
      const due = state.lastSentAt + throttleMs;
      if (due <= at) {
        ready.push(state.pending);
        state.pending = undefined;
        state.lastSentAt = at;
      } else next = Math.min(next, due - at);
    }
    send(ready);
    if (next !== Infinity) scheduleFlush(next);
  }

  /** While there are subscribers and the WebSocket stream is not live: the REST price list. */
  async function poll(): Promise<void> {
    if (polling || subscribers() === 0 || live.state().live) return;
    polling = true;
    try {
      const served = await data.prices();
      const ts = isoMs(served.fetchedAt);
      offer(
        served.value.map((quote) => ({ symbol: quote.symbol, price: num(quote.price), ts, source: restSource })),
        now(),
      );
    } catch (error) {
      // The next poll tries again; subscribers keep the last prices they have.
      logger.debug({ err: error }, 'price stream: REST price list unavailable');
    } finally {
      polling = false;
    }
  }

  function startFeeding(): void {
    if (unsubscribeFeed) return;
    unsubscribeFeed = live.onTicks((ticks) =>
      offer(
        ticks.map((tick) => ({
          symbol: tick.symbol,
          price: num(tick.price),
          ts: isoMs(tick.eventTime),
          source: 'stream' as const,
        })),
        now(),
      ),
    );
    pollTimer = setInterval(() => void poll(), pollMs);
    pollTimer.unref();
  }

  function stopFeeding(): void {
    unsubscribeFeed?.();
    unsubscribeFeed = undefined;
    clearInterval(pollTimer);
    clearTimeout(flushTimer);
    flushTimer = undefined;
  }

  return {
    /** The pairs a `symbols` parameter names (null: every pair), or a 422 naming the unknown ones. */
    async resolve(raw: string | undefined): Promise<SymbolInfo[] | null> {
      if (raw === undefined) return null;
      const loc = ['query', 'symbols'];
      const names = [...new Set(splitSymbolList(raw).map((s) => s.toUpperCase()))];
      if (names.length === 0) throw invalidField(loc, 'at least one symbol is required', raw);
      if (names.length > MAX_STREAM_SYMBOLS)
        throw invalidField(loc, `at most ${MAX_STREAM_SYMBOLS} symbols are allowed`, raw);
      const { index } = await data.symbolIndex();
      const found = names.map((name) => resolveSymbol(index, name));
      const unknown = names.filter((_, i) => !found[i]);
      if (unknown.length > 0)
        throw invalidField(loc, `unknown symbol${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, raw);
      return [...new Map((found as SymbolInfo[]).map((info) => [info.symbol, info])).values()];
    },

    /** Every named pair's last price (every trading pair when null). */
    async snapshot(infos: SymbolInfo[] | null): Promise<PriceSnapshot> {
      const list = infos ?? (await data.symbolIndex()).index.trading;
      const entries = await deps.prices.quotes(list);
      const prices = entries.map((e) => ({
        symbol: e.symbol,
        price: num(e.price),
        ts: isoMs(e.updatedAt),
        source: e.feed,
      }));
      return { prices, count: prices.length };
    },

    /** Follows these pairs (every pair when null); answers the unsubscribe. */
    subscribe(symbols: readonly string[] | null, listener: PriceListener): () => void {
      if (symbols === null) everyPair.add(listener);
      else for (const symbol of symbols) byPair.set(symbol, (byPair.get(symbol) ?? new Set()).add(listener));
      startFeeding();
      // A subscriber arriving while the stream is down hears REST prices without waiting a period.
      if (!live.state().live) void poll();
      return () => {
        everyPair.delete(listener);
        for (const symbol of symbols ?? []) {
          const set = byPair.get(symbol);
          set?.delete(listener);
          if (set?.size === 0) byPair.delete(symbol);
        }
        if (subscribers() === 0) stopFeeding();
      };
    },

    subscribers,
    stop: stopFeeding,
  };
}

export type PriceStream = ReturnType<typeof createPriceStream>;
