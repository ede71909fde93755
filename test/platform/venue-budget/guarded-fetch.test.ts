// The one way to a venue (decision 174): the weights a venue's code describes are charged before a
// request and corrected after it, a 429 opens the venue's one breaker for its Retry-After, a call
// that never left costs nothing, and five failures in a row open the same breaker for 30 s.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { guardedFetch, type VenueWeights } from '../../../src/platform/venue-budget/guarded-fetch.ts';
import {
  BudgetRefusal,
  createVenueBudgets,
  type VenueBudgets,
} from '../../../src/platform/venue-budget/venue-budget.ts';

/** The start of a minute, so the weight minute never turns over within a case. */
const START = '2026-03-02T10:00:00.000Z';

/** A venue that weighs calls by a `w` parameter, reports its count in `x-used` and states its limit at /info. */
const WEIGHTS: VenueWeights = {
  defaultLimit: 100,
  weigh: (url) => Number(url.searchParams.get('w') ?? 1),
  usedWeight: (headers) => (headers.has('x-used') ? Number(headers.get('x-used')) : undefined),
  limit: { statedBy: (url) => url.pathname === '/info', read: (body) => (body as { limit?: number }).limit },
};

describe('guarded fetch', () => {
  let cache: Cache;
  let budgets: VenueBudgets;
  let clock: ReturnType<typeof fixedClock>;
  let sent: string[];
  let answer: () => Response;
  const base: typeof fetch = async (input) => {
    sent.push(String(input));
    return answer();
  };

  beforeEach(() => {
    cache = createMemoryCache();
    clock = fixedClock(START);
    budgets = createVenueBudgets({ cache, clock, settings: { share: 0.8, maxWaitMs: 0, egress: 'test' } });
    sent = [];
    answer = () => Response.json({ ok: true });
  });
  afterEach(async () => {
    await budgets.close();
    await cache.close();
  });

  it(
    "charges the weight the venue's code declares, raises " + "it to the venue's own count, and learns the limit",
    async () => {
      const budget = budgets.venue('v');
      budget.describe({ label: 'Venue', weights: WEIGHTS });
      const call = guardedFetch(budget, base);
      await call('http://127.0.0.1/data?w=7');
      assert.equal(budget.snapshot().usedWeight1m, 7);
      answer = () => Response.json({ limit: 200 }, { headers: { 'x-used': '30' } });
      await call('http://127.0.0.1/info');
      const state = budget.snapshot();
      assert.deepEqual(
        [state.usedWeight1m, state.limit1m, state.cap1m, state.limitSource, state.modelled],
        [30, 200, 160, 'venue', true],
      );
      await assert.rejects(
        call('http://127.0.0.1/data?w=140'),
        (error: unknown) => error instanceof BudgetRefusal && error.reason === 'budget',
      );
      assert.equal(sent.length, 2, 'the call over the budget was never sent');
    },
  );

  it('a venue without weights counts one a call against a limit it never reaches', async () => {
    const budget = budgets.venue('plain');
    budget.describe({ label: 'Plain' });
    await guardedFetch(budget, base)('http://127.0.0.1/data?w=500');
    assert.deepEqual([budget.snapshot().usedWeight1m, budget.snapshot().modelled], [1, false]);
  });

  it('a 429 opens the breaker for its Retry-After: every caller of the venue is refused without a call', async () => {
    const budget = budgets.venue('v');
    budget.describe({ label: 'Venue', weights: WEIGHTS });
    answer = () => new Response('{}', { status: 429, headers: { 'retry-after': '20' } });
    const limited = await guardedFetch(budget, base)('http://127.0.0.1/data');
    assert.equal(limited.status, 429);
    answer = () => Response.json({ ok: true });
    const another = guardedFetch(budgets.venue('v'), base);
    await assert.rejects(another('http://127.0.0.1/data'), (error: unknown) => {
      assert.ok(error instanceof BudgetRefusal);
      assert.deepEqual(
        [error.detail, error.retryAfterSeconds, error.rateLimited],
        ['Venue is not being called for 20 s after HTTP 429 (rate limit)', 20, true],
      );
      return true;
    });
    assert.equal(sent.length, 1);
    clock.advance(20_001);
    assert.equal((await another('http://127.0.0.1/data')).status, 200);
  });

  it('a call that never left gives its weight back', async () => {
    const budget = budgets.venue('v');
    budget.describe({ label: 'Venue', weights: WEIGHTS });
    const refused: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    await assert.rejects(guardedFetch(budget, refused)('http://127.0.0.1/data?w=9'), TypeError);
    assert.equal(budget.snapshot().usedWeight1m, 0);
  });

  it('five failures in a row open the same breaker for 30 s; a success in between starts the count again', async () => {
    const budget = budgets.venue('v');
    budget.describe({ label: 'Venue', weights: WEIGHTS });
    for (let i = 0; i < 4; i++) await budget.failed();
    budget.succeeded();
    for (let i = 0; i < 4; i++) await budget.failed();
    assert.equal(budget.refusal(), null);
    await budget.failed();
    const refusal = budget.refusal();
    assert.ok(refusal);
    assert.deepEqual(
      [refusal.detail, refusal.retryAfterSeconds, refusal.rateLimited],
      ['Venue is not being called for 30 s after 5 failures in a row', 30, false],
    );
    await assert.rejects(guardedFetch(budget, base)('http://127.0.0.1/data'), BudgetRefusal);
    assert.equal(sent.length, 0);
    assert.equal(budget.snapshot().consecutiveFailures, 5);
  });
});
