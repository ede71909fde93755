// The venue door (decision 250): every caller of a venue gets the same budget and a fetch charged to
// it; a user's calls are charged to that user's share too, the platform's own calls only to the venue.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { createEgress } from '../../../src/platform/venue-budget/egress.ts';
import type { VenueWeights } from '../../../src/platform/venue-budget/guarded-fetch.ts';
import {
  createVenueBudgets,
  UserShareRefusal,
  type VenueBudgets,
} from '../../../src/platform/venue-budget/venue-budget.ts';

/** The start of a minute, so the weight minute never turns over within a case. */
const START = '2026-03-02T10:00:00.000Z';

/** A venue that weighs calls by a `w` parameter and states nothing of its own. */
const WEIGHTS: VenueWeights = {
  defaultLimit: 100,
  weigh: (url) => Number(url.searchParams.get('w') ?? 1),
  usedWeight: () => undefined,
};

describe('venue egress', () => {
  let cache: Cache;
  let budgets: VenueBudgets;
  let sent: string[];
  const base: typeof fetch = async (input) => {
    sent.push(String(input));
    return Response.json({ ok: true });
  };

  beforeEach(() => {
    cache = createMemoryCache();
    // A cap of 80 a minute, of which one user may take 20.
    budgets = createVenueBudgets({
      cache,
      clock: fixedClock(START),
      settings: { share: 0.8, maxWaitMs: 0, egress: 'test', userShare: 0.25 },
    });
    sent = [];
  });
  afterEach(async () => {
    await budgets.close();
    await cache.close();
  });

  it("hands every caller of a venue the same door, on the venue's one budget", () => {
    const egress = createEgress(budgets, base);
    const door = egress.venue('v');
    assert.equal(egress.venue('v'), door);
    assert.equal(door.budget, budgets.venue('v'));
    assert.notEqual(egress.venue('w').budget, door.budget);
  });

  it("charges a user's calls to the venue and to that user's share, the platform's to the venue alone", async () => {
    const door = createEgress(budgets, base).venue('v');
    door.budget.describe({ label: 'Venue', weights: WEIGHTS });
    await door.forUser('u1')('http://127.0.0.1/data?w=15');
    await assert.rejects(door.forUser('u1')('http://127.0.0.1/data?w=10'), UserShareRefusal);
    await door.forUser('u2')('http://127.0.0.1/data?w=10');
    await door.fetch('http://127.0.0.1/data?w=30');
    await door.forUser(undefined)('http://127.0.0.1/data?w=20');
    assert.equal(door.budget.snapshot().usedWeight1m, 75);
    assert.deepEqual(sent, [
      'http://127.0.0.1/data?w=15',
      'http://127.0.0.1/data?w=10',
      'http://127.0.0.1/data?w=30',
      'http://127.0.0.1/data?w=20',
    ]);
  });
});
