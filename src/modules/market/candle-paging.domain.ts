// The most recent candles of a window, however many upstream pages that takes. Binance returns at
// most 1000 candles per call, oldest first, and with only `endTime` it returns the newest ones up to
// it; so we walk backwards from the window's end until the limit or the window's start is reached.
import type { Candle } from './market.types.ts';

const UPSTREAM_PAGE = 1000;

interface CandleWindow {
  /** Inclusive bounds on the candles' open time, in ms. */
  start: number;
  end: number;
}

export interface RecentCandles {
  /** Oldest first. */
  candles: Candle[];
  /** True when the window holds older candles that the limit left out. */
  truncated: boolean;
}

/**
 * @param fetchPage the newest `limit` candles whose open time is at most `endTime`, oldest first.
 * @param minStepMs the shortest length a candle of this interval can have.
 */
export async function mostRecentCandles(
  fetchPage: (endTime: number, limit: number) => Promise<Candle[]>,
  window: CandleWindow,
  limit: number,
  minStepMs: number,
): Promise<RecentCandles> {
  const pages: Candle[][] = [];
  let count = 0;
  let cursor = window.end;
  let truncated = false;
  while (count < limit) {
    const want = Math.min(UPSTREAM_PAGE, limit - count);
    const page = await fetchPage(cursor, want);
    const inside = page.filter((c) => c.openTime >= window.start && c.openTime <= cursor);
    pages.unshift(inside);
    count += inside.length;
    const oldest = page[0];
    // A short page means the venue has nothing older; an old enough page means the window is covered.
    if (!oldest || page.length < want || oldest.openTime <= window.start) break;
    if (count >= limit) {
      truncated = oldest.openTime - minStepMs >= window.start;
      break;
    }
    cursor = oldest.openTime - 1;
  }
  return { candles: pages.flat(), truncated };
}
