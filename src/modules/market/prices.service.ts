// Tickers and prices. Prices come from the live stream's price map while it is live, and from the
// venue's REST price list (cached a few seconds) for whatever the stream has not delivered.
import type { Clock } from '../../platform/clock.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { LiveFeedState, LivePriceFeed } from './adapters/market-source.ts';
import { topByQuoteVolume } from './rankings.domain.ts';
import { resolveSymbol } from './symbols.domain.ts';
import type { Served } from './market-cache.ts';
import type { MarketData } from './market-data.ts';
import type { PairTicker, SymbolInfo } from './market.types.ts';
import type { PriceEntry, TickerQuery } from './prices.schemas.ts';
import { freshness, symbolList, type Freshness, type MarketAnswer } from './answers.ts';

type PairRef = Pick<SymbolInfo, 'symbol' | 'base' | 'quote'>;
export type PriceFeed = PriceEntry['feed'];

/** A pair's last price, the venue's decimal string, from the live stream or the REST price list. */
export interface PricedPair extends PairRef {
  price: string;
  feed: PriceFeed;
  /** The stream event's time, or the REST fetch's, ms. */
  updatedAt: number;
}

/** 24 h tickers (type 24hr) or last prices (type price) of the pairs asked for. */
export type TickerAnswer =
  | (MarketAnswer<readonly PairTicker[]> & { type: '24hr' })
  | (MarketAnswer<PricedPair[]> & { type: 'price' });

export interface LivePrices extends MarketAnswer<PricedPair[]> {
  /** Where most prices came from. */
  feed: PriceFeed;
  stream: LiveFeedState;
}

export interface PriceAnswer extends MarketAnswer<PricedPair> {
  /** The venue the price comes from. */
  exchange: string;
}

interface PricedSet {
  entries: PricedPair[];
  pieces: { fetchedAt: number; stale: boolean }[];
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
    const entries: PricedPair[] = [];
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
        price: tick.price,
        feed: 'stream',
        updatedAt: tick.eventTime,
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
          price: quoted,
          feed: restFeed,
          updatedAt: rest.fetchedAt,
        });
      }
      pieces.push(rest);
    }
    return { entries, pieces };
  }

  return {
    /** Last prices of these pairs, stream first, REST for the rest (the price stream's snapshot). */
    quotes: async (infos: readonly PairRef[]): Promise<PricedPair[]> => (await price(infos)).entries,

    async ticker(query: TickerQuery): Promise<TickerAnswer> {
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
        return { type: 'price', data: entries, freshness: freshness(source, now(), ...pieces) };
      }
      const tickers = await data.pairTickers();
      const key = infos ? `ticker:${infos.map((i) => i.symbol).join(',')}` : `ticker:top:${limit}`;
      const rows = data.derive(key, [tickers.rows], () =>
        infos
          ? infos.map((info) => {
              const pair = tickers.bySymbol.get(info.symbol);
              if (!pair) throw notFound(`No 24 h ticker for ${info.symbol}: it is not trading`);
              return pair;
            })
          : topByQuoteVolume(tickers.rows, tickers.rates, limit),
      );
      const fresh = freshness(source, now(), tickers.served);
      return data.derive(
        `answer:${key}`,
        [rows, fresh.stale, fresh.ageSeconds, fresh.updatedAt],
        (): TickerAnswer => ({ type: '24hr', data: rows, freshness: fresh }),
      );
    },

    async prices(symbols: string): Promise<MarketAnswer<PricedPair[]>> {
      const { entries, pieces } = await price(await resolveAll(symbolList(symbols, ['query', 'symbols'])));
      return { data: entries, freshness: freshness(source, now(), ...pieces) };
    },

    async livePrices(symbols: string | undefined): Promise<LivePrices> {
      let set: PricedSet;
      if (symbols !== undefined) {
        set = await price(await resolveAll(symbolList(symbols, ['query', 'symbols'])));
      } else {
        const { index } = await data.symbolIndex();
        const streamed = [...live.ticks()].flatMap((tick) => index.bySymbol.get(tick.symbol) ?? []);
        set = await price(streamed.length > 0 ? streamed : index.trading);
      }
      const stream = live.state();
      const at: Freshness =
        set.pieces.length > 0
          ? freshness(source, now(), ...set.pieces)
          : freshness(source, now(), { fetchedAt: now(), stale: false });
      return { data: set.entries, feed: stream.live ? 'stream' : restFeed, stream, freshness: at };
    },

    async price(symbol: string): Promise<PriceAnswer> {
      const { entries, pieces } = await price([await data.resolve(symbol)]);
      return { data: entries[0]!, exchange: source, freshness: freshness(source, now(), ...pieces) };
    },
  };
}

export type PriceService = ReturnType<typeof createPriceService>;
