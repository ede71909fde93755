// Candlesticks: the newest ones of a pair (ohlc), and the most recent ones of a window (ohlc-range),
// which the scheduled jobs also use through `candles()`.
import type { Clock } from '../../platform/clock.ts';
import { invalidField } from '../../platform/http/errors.ts';
import { expectedList } from '../../platform/http/pydantic-errors.ts';
import { INTERVALS, isInterval, type Interval } from './intervals.domain.ts';
import type { MarketData } from './market-data.ts';
import type { Candle, SymbolInfo } from './market.types.ts';
import type { OhlcQuery, OhlcRangeQuery } from './candles.schemas.ts';
import { freshness, stamped, type MarketAnswer } from './answers.ts';

const RANGE_LIMIT = { max: 2000, fallback: 1000 };

/** A pair's candles of one interval, oldest first. */
export interface CandleSeries {
  pair: SymbolInfo;
  interval: Interval;
  candles: readonly Candle[];
}

/** The most recent candles opening within [start, end]; `truncated` when the window holds older ones. */
export interface CandleWindow extends CandleSeries {
  start: Date;
  end: Date;
  limit: number;
  truncated: boolean;
}

export function createCandleService(deps: { data: MarketData; clock: Clock; source: string }) {
  const { data, clock, source } = deps;
  const now = () => clock.now().getTime();

  async function range(symbol: string, interval: Interval, start: Date, end: Date, limit: number) {
    if (!(start.getTime() < end.getTime()))
      throw invalidField(['query', 'end'], 'end must be after start', end.toISOString());
    const info = await data.resolve(symbol);
    const served = await data.candleRange(info.symbol, interval, start.getTime(), end.getTime(), limit);
    return { info, served };
  }

  return {
    async ohlc(query: OhlcQuery): Promise<MarketAnswer<CandleSeries>> {
      const interval = query.interval ?? '1h';
      const limit = query.limit ?? 100;
      const info = await data.resolve(query.symbol);
      const served = await data.candles(info.symbol, interval);
      const key = `ohlc:${info.symbol}:${interval}:${limit}`;
      const series = data.derive(key, [served.value], () => ({
        pair: info,
        interval,
        candles: served.value.slice(-limit),
      }));
      return stamped(data.derive, key, series, freshness(source, now(), served));
    },

    async ohlcRange(query: OhlcRangeQuery): Promise<MarketAnswer<CandleWindow>> {
      const interval = query.interval ?? '1h';
      const limit = query.limit ?? RANGE_LIMIT.fallback;
      const start = new Date(query.start);
      const end = new Date(query.end);
      const { info, served } = await range(query.symbol, interval, start, end, limit);
      const key = `ohlc-range:${info.symbol}:${interval}:${start.getTime()}:${end.getTime()}:${limit}`;
      const window = data.derive(key, [served.value], () => ({
        pair: info,
        interval,
        candles: served.value.candles,
        start,
        end,
        limit,
        truncated: served.value.truncated,
      }));
      return stamped(data.derive, key, window, freshness(source, now(), served));
    },

    /** For the scheduled jobs: the ohlc-range candles (most recent `limit` in [start, end]) as numbers. */
    async candles(symbol: string, interval: string, start: Date, end: Date, limit = RANGE_LIMIT.fallback) {
      if (!isInterval(interval)) {
        const expected = expectedList(INTERVALS);
        throw invalidField(['query', 'interval'], `Input should be ${expected}`, interval, 'enum', { expected });
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > RANGE_LIMIT.max) {
        throw invalidField(['query', 'limit'], `limit must be from 1 to ${RANGE_LIMIT.max}`, limit);
      }
      const { served } = await range(symbol, interval, start, end, limit);
      return served.value.candles.map((c) => ({
        openTime: c.openTime,
        open: Number(c.open),
        high: Number(c.high),
        low: Number(c.low),
        close: Number(c.close),
        volume: Number(c.volume),
      }));
    },
  };
}

export type CandleService = ReturnType<typeof createCandleService>;
