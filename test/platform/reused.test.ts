// One answer reused for a window by the clock, shared while it is computed, never kept when it failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { reusedFor } from '../../src/platform/reused.ts';

describe('reusedFor', () => {
  it('shares one computation among concurrent callers and reuses it until the window ends', async () => {
    const clock = fixedClock('2026-03-01T12:00:00.000Z');
    let computed = 0;
    const reused = reusedFor(5_000, clock, async () => ++computed);
    assert.deepEqual(await Promise.all([reused.get(), reused.get(), reused.get()]), [1, 1, 1]);
    clock.advance(4_999);
    assert.equal(await reused.get(), 1);
    clock.advance(1);
    assert.equal(await reused.get(), 2);
    clock.set('2026-03-01T11:00:00.000Z');
    assert.equal(await reused.get(), 3, 'a clock set back does not keep an answer from the future');
    reused.forget();
    assert.equal(await reused.get(), 4);
  });

  it('does not keep a failure: the next caller computes again', async () => {
    const clock = fixedClock('2026-03-01T12:00:00.000Z');
    let calls = 0;
    const reused = reusedFor(5_000, clock, async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return 'up';
    });
    await assert.rejects(reused.get(), /down/);
    assert.equal(await reused.get(), 'up');
    assert.equal(calls, 2);
  });
});
