import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay } from './binance-live-feed.ts';

describe('stream reconnect back-off', () => {
  it('doubles from the base up to the cap, with jitter between half and all of it', () => {
    const most = (attempt: number) => backoffDelay(attempt, 1_000, 60_000, () => 1);
    const least = (attempt: number) => backoffDelay(attempt, 1_000, 60_000, () => 0);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].map(most), [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    assert.deepEqual([0, 1, 2].map(least), [500, 1_000, 2_000]);
    assert.equal(backoffDelay(500, 1_000, 60_000, () => 0.5), 45_000);
  });
});
