import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Candle } from './market.types.ts';
import { mostRecentCandles } from './candle-paging.domain.ts';

const STEP = 60_000;

/** A venue with one candle per minute from `first` to `last`, answering like Binance's klines with only endTime. */
function venue(first: number, last: number) {
  const calls: { endTime: number; limit: number }[] = [];
  const fetchPage = async (endTime: number, limit: number): Promise<Candle[]> => {
    calls.push({ endTime, limit });
    const newest = Math.min(last, Math.floor(endTime / STEP) * STEP);
    const rows: Candle[] = [];
    for (let open = Math.max(first, newest - (limit - 1) * STEP); open <= newest; open += STEP) {
      rows.push({
        openTime: open,
        open: '1',
        high: '1',
        low: '1',
        close: '1',
        volume: '1',
        closeTime: open + STEP - 1,
        quoteVolume: '1',
        trades: 1,
      });
    }
    return rows;
  };
  return { calls, fetchPage };
}

const opens = (candles: Candle[]) => candles.map((c) => c.openTime / STEP);

describe('most recent candles of a window', () => {
  it('pages backwards past 1000 candles and answers them oldest first', async () => {
    const v = venue(0, 10_000 * STEP);
    const { candles, truncated } = await mostRecentCandles(
      v.fetchPage,
      { start: 5_000 * STEP, end: 7_499 * STEP },
      2000,
      STEP,
    );
    assert.equal(candles.length, 2000);
    assert.deepEqual(opens(candles).slice(0, 2), [5_500, 5_501]);
    assert.equal(opens(candles).at(-1), 7_499);
    assert.equal(truncated, true);
    assert.deepEqual(v.calls, [
      { endTime: 7_499 * STEP, limit: 1000 },
      { endTime: 6_500 * STEP - 1, limit: 1000 },
    ]);
  });

  it('stops at the window start and drops candles before it', async () => {
    const v = venue(0, 10_000 * STEP);
    const { candles, truncated } = await mostRecentCandles(
      v.fetchPage,
      { start: 8_500 * STEP + 30_000, end: 9_999 * STEP },
      2000,
      STEP,
    );
    assert.equal(opens(candles)[0], 8_501, 'a candle opening before the start is outside the window');
    assert.equal(candles.length, 1499);
    assert.equal(truncated, false);
    assert.equal(v.calls.length, 2);
  });

  it('stops when the venue has no older candles', async () => {
    const v = venue(9_900 * STEP, 10_000 * STEP);
    const { candles, truncated } = await mostRecentCandles(v.fetchPage, { start: 0, end: 20_000 * STEP }, 500, STEP);
    assert.equal(candles.length, 101);
    assert.equal(truncated, false);
    assert.equal(v.calls.length, 1);
  });

  it('answers nothing for a window before the first candle or in the future', async () => {
    assert.deepEqual(
      (await mostRecentCandles(venue(100 * STEP, 200 * STEP).fetchPage, { start: 0, end: 50 * STEP }, 10, STEP))
        .candles,
      [],
    );
    const future = await mostRecentCandles(
      venue(0, 200 * STEP).fetchPage,
      { start: 300 * STEP, end: 400 * STEP },
      10,
      STEP,
    );
    assert.deepEqual(future.candles, []);
  });

  it('is not truncated when the limit is met exactly at the window start', async () => {
    const v = venue(0, 10_000 * STEP);
    const { candles, truncated } = await mostRecentCandles(
      v.fetchPage,
      { start: 9_000 * STEP, end: 9_999 * STEP },
      1000,
      STEP,
    );
    assert.equal(candles.length, 1000);
    assert.equal(truncated, false);
  });
});
