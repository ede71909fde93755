// What the paper engine reads of the market (docs/decisions/215): the venue's pair a unified symbol
// (BTC/USDT) names while it trades, its order book (100 levels, cached 2 s, through the venue budget),
// and the live ticks GET /api/v1/market/stream is fed from, with whether the stream serves prices now.
import type { LivePriceFeed } from './adapters/market-source.ts';
import type { MarketData } from './market-data.ts';

export function createTradingService(deps: {
  data: Pick<MarketData, 'symbolIndex' | 'orderBook'>;
  live: Pick<LivePriceFeed, 'onTicks' | 'state'>;
  /** `binance`, or `simulated` (MARKET_DATA_SOURCE): where books and prices come from. */
  source: string;
}) {
  const { data, live, source } = deps;
  return {
    source,
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
  };
}
