// The venue's pairs and their order books.
import { Decimal } from 'decimal.js';
import type { Clock } from '../../platform/clock.ts';
import type { MarketData } from './market-data.ts';
import type { OrderBook, SymbolInfo } from './market.types.ts';
import { freshness, stamped, type MarketAnswer } from './answers.ts';

type Level = [price: string, quantity: string];

/** The trading pairs in venue order, and their distinct quote assets, sorted. */
export interface SymbolListing {
  symbols: readonly SymbolInfo[];
  quoteAssets: string[];
}

/** The best `depth` levels of each side (venue decimal strings) and the figures computed from them. */
export interface BookView {
  pair: SymbolInfo;
  depth: number;
  lastUpdateId: number;
  bids: Level[];
  asks: Level[];
  bestBid: number | null;
  bestAsk: number | null;
  midPrice: number | null;
  spread: number | null;
  /** Spread relative to the mid price, in percent (6 decimal places). */
  spreadPercent: number | null;
  bidVolume: number;
  askVolume: number;
}

function bookView(info: SymbolInfo, book: OrderBook, depth: number): BookView {
  const bids = book.bids.slice(0, depth);
  const asks = book.asks.slice(0, depth);
  const bestBid = bids[0] ? new Decimal(bids[0][0]) : undefined;
  const bestAsk = asks[0] ? new Decimal(asks[0][0]) : undefined;
  const mid = bestBid && bestAsk ? bestBid.add(bestAsk).div(2) : undefined;
  const spread = bestBid && bestAsk ? bestAsk.sub(bestBid) : undefined;
  const total = (levels: Level[]) => Decimal.sum(0, ...levels.map(([, quantity]) => quantity)).toNumber();
  return {
    pair: info,
    depth,
    lastUpdateId: book.lastUpdateId,
    bids,
    asks,
    bestBid: bestBid?.toNumber() ?? null,
    bestAsk: bestAsk?.toNumber() ?? null,
    midPrice: mid?.toNumber() ?? null,
    spread: spread?.toNumber() ?? null,
    spreadPercent: spread && mid && !mid.isZero() ? spread.div(mid).mul(100).toDecimalPlaces(6).toNumber() : null,
    bidVolume: total(bids),
    askVolume: total(asks),
  };
}

export function createPairService(deps: { data: MarketData; clock: Clock; source: string }) {
  const { data, clock, source } = deps;
  const now = () => clock.now().getTime();

  return {
    async symbols(): Promise<MarketAnswer<SymbolListing>> {
      const { served, index } = await data.symbolIndex();
      const listing = data.derive('symbols-answer', [index], () => ({
        symbols: index.trading,
        quoteAssets: [...new Set(index.trading.map((s) => s.quote))].sort(),
      }));
      return stamped(data.derive, 'symbols', listing, freshness(source, now(), served));
    },

    async orderBook(symbol: string, depth: number): Promise<MarketAnswer<BookView>> {
      const info = await data.resolve(symbol);
      const served = await data.orderBook(info.symbol);
      const view = data.derive(`book:${info.symbol}:${depth}`, [served.value], () =>
        bookView(info, served.value, depth),
      );
      return stamped(data.derive, `book:${info.symbol}:${depth}`, view, freshness(source, now(), served));
    },
  };
}

export type PairService = ReturnType<typeof createPairService>;
