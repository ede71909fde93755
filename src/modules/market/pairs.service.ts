// The venue's pairs and their order books.
import { Decimal } from 'decimal.js';
import type { Clock } from '../../platform/clock.ts';
import type { MarketData } from './market-data.ts';
import type { OrderBook, SymbolInfo } from './market.types.ts';
import type { OrderBookResponse } from './candles.schemas.ts';
import type { SymbolsResponse } from './prices.schemas.ts';
import { freshness, num, stamped } from './answers.ts';

function bookAnswer(info: SymbolInfo, book: OrderBook, depth: number) {
  const bids = book.bids.slice(0, depth);
  const asks = book.asks.slice(0, depth);
  const bestBid = bids[0] ? new Decimal(bids[0][0]) : undefined;
  const bestAsk = asks[0] ? new Decimal(asks[0][0]) : undefined;
  const mid = bestBid && bestAsk ? bestBid.add(bestAsk).div(2) : undefined;
  const spread = bestBid && bestAsk ? bestAsk.sub(bestBid) : undefined;
  const total = (levels: [string, string][]) => Decimal.sum(0, ...levels.map(([, quantity]) => quantity)).toNumber();
  const levels = (side: [string, string][]) =>
    side.map(([price, quantity]) => ({ price: num(price), quantity: num(quantity) }));
  return {
    symbol: info.symbol,
    base: info.base,
    quote: info.quote,
    depth,
    last_update_id: book.lastUpdateId,
    bids: levels(bids),
    asks: levels(asks),
    best_bid: bestBid?.toNumber() ?? null,
    best_ask: bestAsk?.toNumber() ?? null,
    mid_price: mid?.toNumber() ?? null,
    spread: spread?.toNumber() ?? null,
    spread_percent: spread && mid && !mid.isZero() ? spread.div(mid).mul(100).toDecimalPlaces(6).toNumber() : null,
    bid_volume: total(bids),
    ask_volume: total(asks),
  };
}

export function createPairService(deps: { data: MarketData; clock: Clock; source: string }) {
  const { data, clock, source } = deps;
  const now = () => clock.now().getTime();

  return {
    async symbols(): Promise<SymbolsResponse> {
      const { served, index } = await data.symbolIndex();
      const listing = data.derive('symbols-answer', [index], () => ({
        symbols: index.trading.map((s) => ({ symbol: s.symbol, base: s.base, quote: s.quote, status: s.status })),
        count: index.trading.length,
        quote_assets: [...new Set(index.trading.map((s) => s.quote))].sort(),
      }));
      return stamped(data.derive, 'symbols', listing, freshness(source, now(), served));
    },

    async orderBook(symbol: string, depth: number): Promise<OrderBookResponse> {
      const info = await data.resolve(symbol);
      const served = await data.orderBook(info.symbol);
      const body = data.derive(`book:${info.symbol}:${depth}`, [served.value], () =>
        bookAnswer(info, served.value, depth),
      );
      return stamped(data.derive, `book:${info.symbol}:${depth}`, body, freshness(source, now(), served));
    },
  };
}

export type PairService = ReturnType<typeof createPairService>;
