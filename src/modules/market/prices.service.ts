// Tickers and prices. Prices come from the live stream's price map while it is live, and from the
// venue's REST price list (cached a few seconds) for whatever the stream has not delivered.
import type { Clock } from '../../platform/clock.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { LivePriceFeed } from './adapters/market-source.ts';
import { topByQuoteVolume } from './rankings.domain.ts';
import { resolveSymbol } from './symbols.domain.ts';
import type { Served } from './market-cache.ts';
import type { MarketData } from './market-data.ts';
import type { PairTicker, SymbolInfo } from './market.types.ts';
import type {
  LivePricesResponse,
  PriceEntry,
  PriceResponse,
  PricesResponse,
  TickerQuery,
  TickerRow,
} from './prices.schemas.ts';
import { freshness, isoMs, num, symbolList } from './answers.ts';

type PairRef = Pick<SymbolInfo, 'symbol' | 'base' | 'quote'>;

interface PricedSet {
  entries: PriceEntry[];
  pieces: { fetchedAt: number; stale: boolean }[];
}

function tickerRow(p: PairTicker) {
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

export function createPriceService(deps: { data: MarketData; live: LivePriceFeed; clock: Clock; source: string }) {
  const { data, live, clock, source } = deps;
  const restFeed = source === 'simulated' ? 'simulated' : 'rest';
  const now = () => clock.now().getTime();

  async function resolveAll(names: string[]): Promise<SymbolInfo[]> {
    const { index } = await data.symbolIndex();
    const found = names.map((name) => resolveSymbol(index, name));
    const unknown = names.filter((_, i) => !found[i]);
    if (unknown.length > 0) throw notFound(`Unknown symbol${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
    return [...new Map((found as SymbolInfo[]).map((info) => [info.symbol, info])).values()];
  }

  /** Prices of these pairs: stream first, REST for the rest. */
  async function price(infos: readonly PairRef[]): Promise<PricedSet> {
    const entries: PriceEntry[] = [];
    const pieces: PricedSet['pieces'] = [];
    const missing: PairRef[] = [];
    for (const info of infos) {
      const tick = live.tick(info.symbol);
      if (!tick) {
        missing.push(info);
        continue;
      }
      entries.push({
        symbol: info.symbol,
        base: info.base,
        quote: info.quote,
        price: num(tick.price),
        feed: 'stream',
        updated_at: isoMs(tick.eventTime),
      });
      pieces.push({ fetchedAt: Math.min(tick.eventTime, now()), stale: false });
    }
    if (missing.length > 0) {
      const rest: Served<{ symbol: string; price: string }[]> = await data.prices();
      const bySymbol = new Map(rest.value.map((q) => [q.symbol, q.price]));
      for (const info of missing) {
        const quoted = bySymbol.get(info.symbol);
        if (quoted === undefined) throw notFound(`No price for ${info.symbol}`);
        entries.push({
          symbol: info.symbol,
          base: info.base,
          quote: info.quote,
          price: num(quoted),
          feed: restFeed,
          updated_at: isoMs(rest.fetchedAt),
        });
      }
      pieces.push(rest);
    }
    return { entries, pieces };
  }

  const asMap = (entries: PriceEntry[]) => Object.fromEntries(entries.map((e) => [e.symbol, e]));

  return {
    /** Last prices of these pairs, stream first, REST for the rest (the price stream's snapshot). */
    quotes: async (infos: readonly PairRef[]): Promise<PriceEntry[]> => (await price(infos)).entries,

    async ticker(query: TickerQuery): Promise<TickerRow[]> {
      const limit = query.limit ?? 20;
      const names = query.symbols ? symbolList(query.symbols, ['query', 'symbols']) : undefined;
      const infos = names ? await resolveAll(names) : undefined;
      if ((query.type ?? '24hr') === 'price') {
        let pairs: readonly PairRef[];
        if (infos) pairs = infos;
        else {
          const tickers = await data.pairTickers();
          pairs = data.derive(`ticker-top-pairs:${limit}`, [tickers.rows], () =>
            topByQuoteVolume(tickers.rows, tickers.rates, limit),
          );
        }
        const { entries, pieces } = await price(pairs);
        const fresh = freshness(source, now(), ...pieces);
        return entries.map((e) => ({ symbol: e.symbol, base: e.base, quote: e.quote, price: e.price, ...fresh }));
      }
      const tickers = await data.pairTickers();
      const key = infos ? `ticker:${infos.map((i) => i.symbol).join(',')}` : `ticker:top:${limit}`;
      const rows = data.derive(key, [tickers.rows], () =>
        infos
          ? infos.map((info) => {
              const pair = tickers.bySymbol.get(info.symbol);
              if (!pair) throw notFound(`No 24 h ticker for ${info.symbol}: it is not trading`);
              return tickerRow(pair);
            })
          : topByQuoteVolume(tickers.rows, tickers.rates, limit).map(tickerRow),
      );
      const fresh = freshness(source, now(), tickers.served);
      return data.derive(`answer:${key}`, [rows, fresh.stale, fresh.age_seconds, fresh.updated_at], () =>
        rows.map((row) => ({ ...row, ...fresh })),
      );
    },

    async prices(symbols: string): Promise<PricesResponse> {
      const { entries, pieces } = await price(await resolveAll(symbolList(symbols, ['query', 'symbols'])));
      return { prices: asMap(entries), count: entries.length, ...freshness(source, now(), ...pieces) };
    },

    async livePrices(symbols: string | undefined): Promise<LivePricesResponse> {
      let set: PricedSet;
      if (symbols !== undefined) {
        set = await price(await resolveAll(symbolList(symbols, ['query', 'symbols'])));
      } else {
        const { index } = await data.symbolIndex();
        const streamed = [...live.ticks()].flatMap((tick) => index.bySymbol.get(tick.symbol) ?? []);
        set = await price(streamed.length > 0 ? streamed : index.trading);
      }
      const state = live.state();
      const at =
        set.pieces.length > 0
          ? freshness(source, now(), ...set.pieces)
          : freshness(source, now(), { fetchedAt: now(), stale: false });
      return {
        prices: asMap(set.entries),
        count: set.entries.length,
        feed: state.live ? 'stream' : restFeed,
        stream: {
          status: state.status,
          live: state.live,
          last_message_at: state.lastMessageAt === null ? null : isoMs(state.lastMessageAt),
        },
        ...at,
      };
    },

    async price(symbol: string): Promise<PriceResponse> {
      const { entries, pieces } = await price([await data.resolve(symbol)]);
      return { ...entries[0]!, exchange: source, ...freshness(source, now(), ...pieces) };
    },
  };
}

export type PriceService = ReturnType<typeof createPriceService>;
