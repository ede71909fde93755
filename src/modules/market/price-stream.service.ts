// The hub behind GET /api/v1/market/stream: one per instance, whatever the number of subscribers.
// Ticks from Binance's WebSocket stream (or, while it is down, from polling the REST price list) are
// throttled per pair (at most one event per 250 ms, the newest price winning), rendered as JSON once
// per event, and encoded once per batch per symbol set: subscribers are grouped by the set of pairs
// they follow, and every subscriber of a set gets the same Buffer (decision 224), handed to its stream
// itself once the stream is open (decision 540).
import type { Logger } from 'pino';
import { invalidField } from '../../platform/http/errors.ts';
import { sseEvent, sseFrame, type SseFrame } from '../../platform/http/sse.ts';
import type { LivePriceFeed } from './adapters/market-source.ts';
import { resolveSymbol, splitSymbolList } from './symbols.domain.ts';
import type { MarketData } from './market-data.ts';
import type { SymbolInfo } from './market.types.ts';
import { MAX_STREAM_SYMBOLS, type PriceEvent, type PriceSnapshot } from './stream.schemas.ts';
// Its events are wire data (each with its schema), made here by the producing service.
import { isoMs, num } from './market.wire.ts';
import type { PriceService } from './prices.service.ts';

/**
 * Receives one or more `price` events, encoded once for every subscriber of the same pairs: the
 * subscriber's SSE connection itself once its stream is open, so that the fan-out's one pass calls the
 * connection's write directly, with no closure of its own per subscriber between them (decision 540).
 */
export interface PriceSubscriber {
  write(frame: SseFrame): unknown;
}

/** A subscriber's place in the hub. */
export interface PriceSubscription {
  /**
   * From now on the batches go to `next` instead of the subscriber given so far (the stream, once its
   * snapshot is written); nothing once unsubscribed.
   */
  handTo(next: PriceSubscriber): void;
  unsubscribe(): void;
}

/** The subscribers of one symbol set: every pair (`symbols` null) or the same named pairs. */
interface SymbolSet {
  readonly key: string;
  readonly symbols: readonly string[] | null;
  readonly subscribers: Set<PriceSubscriber>;
}

/** What the hub reports for /metrics. */
export interface PriceStreamMetrics {
  /** One batch of events encoded for one symbol set. */
  serialized(): void;
}

interface PairState {
  price: string;
  lastSentAt: number;
  /** When the WebSocket stream last gave this pair a price: a REST poll begun before it is older. */
  streamAt?: number;
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
    metrics?: PriceStreamMetrics;
  },
  options: PriceStreamOptions = {},
) {
  const { data, live, logger, restSource } = deps;
  const throttleMs = options.throttleMs ?? 250;
  const pollMs = options.pollMs ?? 2_000;
  const pairs = new Map<string, PairState>();
  /** Subscribers by symbol set (key: the sorted pairs, `*` for every pair), and the sets naming each pair. */
  const sets = new Map<string, SymbolSet>();
  const setsByPair = new Map<string, Set<SymbolSet>>();
  let everyPair: SymbolSet | undefined;
  let subscriberCount = 0;
  let flushTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let polling = false;
  let unsubscribeFeed: (() => void) | undefined;
  const now = () => Date.now();

  const subscribers = () => subscriberCount;
  const wanted = (symbol: string) => everyPair !== undefined || setsByPair.has(symbol);

  /** Hands every subscriber of a set the one frame made for it. */
  function deliver(set: SymbolSet, text: string): void {
    const frame = sseFrame(text);
    deps.metrics?.serialized();
    for (const subscriber of set.subscribers) subscriber.write(frame);
  }

  /** Sends a batch of events: rendered once each, encoded once per symbol set, in the batch's order. */
  function send(events: PriceEvent[]): void {
    if (events.length === 0) return;
    const rendered = events.map((event) => sseEvent('price', event));
    if (everyPair) deliver(everyPair, rendered.join(''));
    if (setsByPair.size === 0) return;
    const perSet = new Map<SymbolSet, string>();
    events.forEach((event, i) => {
      for (const set of setsByPair.get(event.symbol) ?? []) perSet.set(set, (perSet.get(set) ?? '') + rendered[i]);
    });
    for (const [set, text] of perSet) deliver(set, text);
  }

  function join(symbols: readonly string[] | null, subscriber: PriceSubscriber): SymbolSet {
    const named = symbols === null ? null : [...new Set(symbols)].sort();
    const key = named === null ? '*' : named.join(',');
    let set = sets.get(key);
    if (!set) {
      set = { key, symbols: named, subscribers: new Set() };
      sets.set(key, set);
      if (named === null) everyPair = set;
      else for (const symbol of named) setsByPair.set(symbol, (setsByPair.get(symbol) ?? new Set()).add(set));
    }
    if (!set.subscribers.has(subscriber)) subscriberCount += 1;
    set.subscribers.add(subscriber);
    return set;
  }

  function leave(set: SymbolSet, subscriber: PriceSubscriber): void {
    if (!set.subscribers.delete(subscriber)) return;
    subscriberCount -= 1;
    if (set.subscribers.size > 0) return;
    sets.delete(set.key);
    if (set.symbols === null) everyPair = undefined;
    for (const symbol of set.symbols ?? []) {
      const named = setsByPair.get(symbol);
      named?.delete(set);
      if (named?.size === 0) setsByPair.delete(symbol);
    }
  }

  /** Takes new prices; sends those whose pair may speak now and keeps the others for the flush. */
  function offer(events: PriceEvent[], at: number): void {
    const ready: PriceEvent[] = [];
    for (const event of events) {
      const price = String(event.price);
      const streamAt = event.source === 'stream' ? at : undefined;
      const state = pairs.get(event.symbol);
      if (!state) {
        pairs.set(event.symbol, { price, lastSentAt: wanted(event.symbol) ? at : 0, streamAt });
        if (wanted(event.symbol)) ready.push(event);
        continue;
      }
      if (streamAt !== undefined) state.streamAt = streamAt;
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
    const started = now();
    try {
      const served = await data.prices();
      const ts = isoMs(served.fetchedAt);
      // The stream may have come back while the list was on its way: its prices are newer than the list's.
      const older = (symbol: string) => (pairs.get(symbol)?.streamAt ?? -Infinity) >= started;
      offer(
        served.value
          .filter((quote) => !older(quote.symbol))
          .map((quote) => ({ symbol: quote.symbol, price: num(quote.price), ts, source: restSource })),
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

    /** Follows these pairs (every pair when null). */
    subscribe(symbols: readonly string[] | null, subscriber: PriceSubscriber): PriceSubscription {
      const set = join(symbols, subscriber);
      let current: PriceSubscriber | null = subscriber;
      startFeeding();
      // A subscriber arriving while the stream is down hears REST prices without waiting a period.
      if (!live.state().live) void poll();
      return {
        handTo(next) {
          if (current === null || current === next) return;
          if (set.subscribers.has(next)) leave(set, current);
          else {
            set.subscribers.delete(current);
            set.subscribers.add(next);
          }
          current = next;
        },
        unsubscribe() {
          if (current === null) return;
          leave(set, current);
          current = null;
          if (subscribers() === 0) stopFeeding();
        },
      };
    },

    subscribers,
    /** Distinct symbol sets followed now: the number of encodings per batch. */
    symbolSets: () => sets.size,
    stop: stopFeeding,
  };
}

export type PriceStream = ReturnType<typeof createPriceStream>;
