// What the portfolio reads of the market: the listed pairs with every symbol's last price, a
// symbol's closed candles, and the close of the hourly candle that contains an instant. Served from
// the same cached data as the public endpoints, so the portfolio never costs the venue a call more.
import type { Clock } from '../../platform/clock.ts';
import type { MarketData } from './market-data.ts';
import type { SymbolInfo } from './market.types.ts';

const HOUR_MS = 3_600_000;

export function createQuotesService(deps: {
  data: Pick<MarketData, 'symbolIndex' | 'prices' | 'derive' | 'candleRange'>;
  clock: Clock;
}) {
  const { data, clock } = deps;
  return {
    /** The listed pairs (BASE/QUOTE → symbol) with every symbol's last price. */
    async last(): Promise<{ byPair: ReadonlyMap<string, SymbolInfo>; prices: ReadonlyMap<string, string> }> {
      const [{ index }, served] = await Promise.all([data.symbolIndex(), data.prices()]);
      const prices = data.derive(
        'portfolio-last-prices',
        [served.value],
        () => new Map(served.value.map((p) => [p.symbol, p.price])),
      );
      return { byPair: index.byPair, prices };
    },
    /**
     * The candles of `interval` (1h or 1d) opening within [start, end] that have closed, oldest first (up to 2000).
     */
    async closed(
      symbol: string,
      interval: '1h' | '1d',
      start: number,
      end: number,
    ): Promise<{ openTime: number; close: string }[]> {
      const served = await data.candleRange(symbol, interval, start, end, 2000);
      const now = clock.now().getTime();
      return served.value.candles
        .filter((c) => c.closeTime < now)
        .map((c) => ({ openTime: c.openTime, close: c.close }));
    },
    /** The close of the hourly candle that contains `at`; null when the venue has none. */
    async closeAt(symbol: string, at: Date): Promise<string | null> {
      const open = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
      const served = await data.candleRange(symbol, '1h', open, open, 1);
      return served.value.candles.find((c) => c.openTime === open)?.close ?? null;
    },
  };
}

export type QuotesService = ReturnType<typeof createQuotesService>;
