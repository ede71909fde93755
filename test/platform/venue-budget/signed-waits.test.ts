// A signed request meets the budget after ccxt has signed it, and the venue refuses it once its receive
// window has passed since (Bybit's 5 s): all its waits together fit in what that window leaves, or it is
// refused unsent rather than sent stale (decision 1330). Calls that are not signed keep the budget's own
// longest wait, and a venue's window never lengthens it.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { guardedFetch, type VenueWeights } from '../../../src/platform/venue-budget/guarded-fetch.ts';
import { perWindow, type VenueKeyLimits } from '../../../src/platform/venue-budget/key-limits.ts';
import {
  BudgetRefusal,
  createVenueBudgets,
  KeyLimitRefusal,
  type VenueBudgets,
} from '../../../src/platform/venue-budget/venue-budget.ts';

const START = '2026-03-02T10:00:00.000Z';
const KEY = 'key-digest';
/** One call at once on the IP's short window, room for the next 400 ms later. */
const BURST: VenueWeights = {
  defaultLimit: 1_000,
  weigh: () => 1,
  usedWeight: () => undefined,
  burst: { count: 2, windowMs: 400 },
};
/** A key's counter that, once full, has room again `ms` later. */
const keyLimits = (ms: number): VenueKeyLimits => ({ of: () => [perWindow('private', 2, ms)], exceeded: () => false });

describe('the waits of a signed request', () => {
  let cache: Cache;
  let budgets: VenueBudgets;
  let sent: number;
  const base: typeof fetch = async () => {
    sent += 1;
    return Response.json({});
  };

  beforeEach(() => {
    cache = createMemoryCache();
    budgets = createVenueBudgets({
      cache,
      clock: fixedClock(START),
      settings: { share: 1, maxWaitMs: 5_000, egress: 'signed' },
    });
    sent = 0;
  });
  afterEach(async () => {
    await budgets.close();
    await cache.close();
  });

  it("are bounded by what the venue's window leaves: a full key refuses at once, unsent", async () => {
    const bounded = budgets.venue('bounded');
    bounded.describe({ label: 'Bounded', keyLimits: keyLimits(400), signedWaitMs: 100 });
    await bounded.fillKey(KEY, keyLimits(400).of(new URL('http://127.0.0.1/'), 'GET'));
    await assert.rejects(guardedFetch(bounded, base, { key: KEY })('http://127.0.0.1/private'), KeyLimitRefusal);
    assert.equal(sent, 0);

    // Without a window of its own, the same wait is the budget's to allow.
    const unbounded = budgets.venue('unbounded');
    unbounded.describe({ label: 'Unbounded', keyLimits: keyLimits(400) });
    await unbounded.fillKey(KEY, keyLimits(400).of(new URL('http://127.0.0.1/'), 'GET'));
    await guardedFetch(unbounded, base, { key: KEY })('http://127.0.0.1/private');
    assert.equal(sent, 1);
  });

  it("bound the wait for the IP's short window too, while the venue's unsigned calls wait for it", async () => {
    const budget = budgets.venue('burst');
    budget.describe({ label: 'Burst', weights: BURST, signedWaitMs: 100 });
    const own = guardedFetch(budget, base);
    await own('http://127.0.0.1/public');
    await assert.rejects(guardedFetch(budget, base, { key: KEY })('http://127.0.0.1/private'), BudgetRefusal);
    assert.equal(sent, 1, 'the signed call was not sent');
    await own('http://127.0.0.1/public');
    assert.equal(sent, 2, 'the unsigned call waited its turn');
  });

  it('count together: the wait for the short window leaves less for the key', async () => {
    // The short window has room after 400 ms, the key after 1,700: each alone fits in 1,500 ms, the key's
    // 1,300 ms after the window's 400 do not.
    const budget = budgets.venue('together');
    budget.describe({ label: 'Together', weights: BURST, keyLimits: keyLimits(1_700), signedWaitMs: 1_500 });
    await guardedFetch(budget, base)('http://127.0.0.1/public');
    await budget.fillKey(KEY, keyLimits(1_700).of(new URL('http://127.0.0.1/'), 'GET'));
    const from = Date.now();
    await assert.rejects(guardedFetch(budget, base, { key: KEY })('http://127.0.0.1/private'), KeyLimitRefusal);
    assert.equal(sent, 1);
    assert.ok(Date.now() - from < 1_300, 'refused once the window was waited for, without the key’s wait');
  });

  it("never exceed the budget's own longest wait, however long the venue's window", async () => {
    const short = createVenueBudgets({
      cache,
      clock: fixedClock(START),
      settings: { share: 1, maxWaitMs: 100, egress: 'short' },
    });
    const budget = short.venue('long-window');
    budget.describe({ label: 'Long window', keyLimits: keyLimits(400), signedWaitMs: 60_000 });
    await budget.fillKey(KEY, keyLimits(400).of(new URL('http://127.0.0.1/'), 'GET'));
    await assert.rejects(guardedFetch(budget, base, { key: KEY })('http://127.0.0.1/private'), KeyLimitRefusal);
    assert.equal(sent, 0);
    await short.close();
  });
});
