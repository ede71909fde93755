// What a key's counters admit over time (decisions 255, 430), measured at the counter on a clock the test
// moves (the budget's and its memory store's, decision 802), for each venue's declared limits
// with the share at 80 %. A caller that takes every call the counter lets through, a millisecond at a
// time, with no wait (what does not fit is refused):
// - a count N per window W (OKX, Bybit, Coinbase): any W and a half of admissions holds at most N, so
//   calls that reach the venue up to half a window later than they were admitted still fit any of its
//   windows. With the ceiling alone cut to the share, OKX's 10 per 2 s admitted 11 in 3 s;
// - Kraken's decaying counter: another client of the key steadily using the rest of the share of its
//   decay never brings Kraken's own counter (simulated over both clients' calls) to its ceiling. With
//   the counter draining at Kraken's whole decay, ours alone took all of it and the other's calls piled up.
import assert from 'node:assert/strict';
import { describe, it } from '../../helpers/suite.ts';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { createVenueBudgets, KeyLimitRefusal } from '../../../src/platform/venue-budget/venue-budget.ts';
import type { KeyLimit } from '../../../src/platform/venue-budget/key-limits.ts';
import { venueProfile } from '../../../src/modules/exchange/adapters/venue-profiles.ts';
import { KRAKEN_STARTER } from '../../../src/modules/exchange/adapters/venue-key-limits.ts';
import type { Venue } from '../../../src/modules/exchange/venues.domain.ts';

const SHARE = 0.8;

/**
 * One venue's budget on process memory, refusing at once what does not fit (no wait), on a clock that
 * stands still until the caller moves it.
 */
function counters(venue: Venue) {
  const clock = fixedClock(new Date(Date.UTC(2026, 0, 1)));
  const budgets = createVenueBudgets({
    cache: createMemoryCache(undefined, undefined, () => clock.now().getTime()),
    clock,
    settings: { share: SHARE, maxWaitMs: 0, egress: 'rates', userShare: 1 },
  });
  const budget = budgets.venue(venue);
  budget.describe(venueProfile(venue, { krakenCounter: KRAKEN_STARTER, rateLimit: true }));
  return { budget, clock };
}

/**
 * Every call `limits` admit for one key over `seconds`, to a caller that comes back the moment each
 * refusal's Retry-After says. Answers the admission times (ms from the start).
 */
async function greedy(
  venue: Venue,
  call: { url: string; method: string },
  seconds: number,
): Promise<{ admitted: number[]; limits: readonly KeyLimit[] }> {
  const { budget, clock } = counters(venue);
  const limits = budget.keyLimits!.of(new URL(call.url), call.method);
  assert.equal(limits.length, 1, `${call.url} draws on one counter`);
  const start = clock.now().getTime();
  const elapsed = () => clock.now().getTime() - start;
  const admitted: number[] = [];
  while (elapsed() <= seconds * 1000) {
    try {
      await budget.acquireKey('key-digest', limits);
      admitted.push(elapsed());
    } catch (error) {
      assert.ok(error instanceof KeyLimitRefusal, String(error));
      const waitMs = Math.round(error.retryAfterSeconds * 1000);
      assert.ok(waitMs >= 1, `${waitMs} ms`);
      clock.advance(waitMs);
    }
  }
  return { admitted, limits };
}

/** The most admissions in any closed span of `spanMs` (admission times in order). */
function mostWithin(times: number[], spanMs: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[j]! < times[i]! - spanMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** Each venue's limits of N calls per window, as declared (adapters/venue-key-limits.ts). */
const WINDOWED: { venue: Venue; url: string; method: string; count: number; windowMs: number }[] = [
  { venue: 'okx', url: 'https://okx.test/api/v5/account/balance', method: 'GET', count: 10, windowMs: 2_000 },
  { venue: 'okx', url: 'https://okx.test/api/v5/account/config', method: 'GET', count: 5, windowMs: 2_000 },
  { venue: 'okx', url: 'https://okx.test/api/v5/asset/balances', method: 'GET', count: 6, windowMs: 1_000 },
  { venue: 'bybit', url: 'https://bybit.test/v5/account/wallet-balance', method: 'GET', count: 50, windowMs: 1_000 },
  { venue: 'bybit', url: 'https://bybit.test/v5/order/create', method: 'POST', count: 20, windowMs: 1_000 },
  { venue: 'bybit', url: 'https://bybit.test/v5/user/query-api', method: 'GET', count: 10, windowMs: 1_000 },
  {
    venue: 'coinbase',
    url: 'https://coinbase.test/api/v3/brokerage/accounts',
    method: 'GET',
    count: 30,
    windowMs: 1_000,
  },
];

describe("what a key's counters admit over time, with our share of the venue's limit", () => {
  for (const { venue, url, method, count, windowMs } of WINDOWED) {
    const path = new URL(url).pathname;
    it(`${venue} ${path} (${count} per ${windowMs / 1000} s): any window and a half admits at most ${count}`, async () => {
      const { admitted } = await greedy(venue, { url, method }, (5 * windowMs) / 1000);
      const late = windowMs / 2;
      const most = mostWithin(admitted, windowMs + late);
      assert.ok(
        most <= count,
        `${most} calls admitted within ${windowMs + late} ms: arriving up to ${late} ms late, more than ` +
          `${count} could meet in one of the venue's windows`,
      );
      // The share bounds the rate as well as the burst: over the 5 windows, our share of N/2 + 5 × N/2.
      assert.ok(admitted.length <= Math.floor(SHARE * (count / 2) * 6), `${admitted.length} admitted in all`);
      assert.ok(mostWithin(admitted, windowMs) >= SHARE * count - 1, 'the share itself is admitted');
    });
  }

  it("kraken's call counter (Starter, 15 decaying 0.33/s): with another client of the key using the rest of the decay, Kraken's counter stays under its ceiling", async () => {
    const { max, decayPerSecond } = KRAKEN_STARTER;
    // The other client: one call each time the rest of the share's decay has drained one call's worth.
    const otherEveryMs = Math.ceil(1000 / ((1 - SHARE) * decayPerSecond));
    const balance = { url: 'https://kraken.test/0/private/Balance', method: 'POST' };
    const { admitted, limits } = await greedy('kraken', balance, 240);
    const others = Array.from({ length: Math.floor(240_000 / otherEveryMs) + 1 }, (_, k) => k * otherEveryMs);
    const cost = limits[0]!.cost;
    // Kraken's own counter over both clients' calls, in the order they arrive.
    const arrivals = [...admitted.map((at) => ({ at, cost })), ...others.map((at) => ({ at, cost: 1 }))].sort(
      (a, b) => a.at - b.at,
    );
    let level = 0;
    let at = 0;
    let highest = 0;
    for (const arrival of arrivals) {
      level = Math.max(0, level - ((arrival.at - at) / 1000) * decayPerSecond) + arrival.cost;
      at = arrival.at;
      highest = Math.max(highest, level);
    }
    assert.ok(highest <= max, `Kraken's counter reached ${highest.toFixed(2)} of ${max}`);
    // And ours took its share: its ceiling at once, then 80 % of the decay.
    const ours = admitted.length * cost;
    assert.ok(ours >= SHARE * max + SHARE * decayPerSecond * 240 - 2, `${ours} admitted in 240 s`);
  });
});
