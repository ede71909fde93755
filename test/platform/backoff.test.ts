import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay } from '../../src/platform/backoff.ts';

/** A reconnect curve like the live price stream's (capped at 60 s here): each delay half to all of the doubled one. */
const curve = { baseMs: 1_000, maxMs: 60_000, jitter: [0.5, 1] } as const;

describe('stream reconnect back-off', () => {
  it('doubles from the base up to the cap, with jitter between half and all of it', () => {
    const most = (attempt: number) => backoffDelay(attempt, curve, () => 1);
    const least = (attempt: number) => backoffDelay(attempt, curve, () => 0);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].map(most), [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    assert.deepEqual([0, 1, 2].map(least), [500, 1_000, 2_000]);
    assert.equal(
      backoffDelay(500, curve, () => 0.5),
      45_000,
    );
  });
});
