// The market cache over the platform cache (process memory, or Redis when REDIS_URL is set): fresh
// hits, one load for concurrent misses (also across instances sharing the cache), stale answers
// within their bound on upstream failure only, and derived values computed once per entry.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createMarketCache } from '../../../src/modules/market/market-cache.ts';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { createRedisCache } from '../../../src/platform/cache/redis-cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { AppError, notFound } from '../../../src/platform/http/errors.ts';
import { waitFor } from '../../helpers/wait.ts';

const caches: Cache[] = [];
function sharedCache(): Cache {
  const cache = process.env.REDIS_URL
    ? createRedisCache(process.env.REDIS_URL, `test:${randomUUID()}:`)
    : createMemoryCache();
  caches.push(cache);
  return cache;
}
after(async () => {
  for (const cache of caches) await cache.close();
});

const POLICY = { ttlMs: 5_000, staleMs: 60_000 };
/** The items (candles) each of the market cache's stores holds at most (HELD_ITEMS, decision 744). */
const HELD_ITEMS = 150_000;
const upstreamDown = () => new AppError('upstream_error', 'Binance answered HTTP 500');

function counter<T>(value: T, delayMs = 0) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    load: async () => {
      calls += 1;
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return value;
    },
  };
}

describe('market cache', () => {
  it('serves a fresh entry without loading and reloads after the TTL', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMarketCache({ cache: sharedCache(), clock, lockTtlMs: 1_000, waitMs: 1_000 });
    const source = counter({ price: 1 });
    const first = await store.get('k', POLICY, source.load);
    assert.deepEqual(first, { value: { price: 1 }, fetchedAt: clock.now().getTime(), stale: false });
    clock.advance(4_999);
    await store.get('k', POLICY, source.load);
    assert.equal(source.calls, 1);
    clock.advance(1);
    await store.get('k', POLICY, source.load);
    assert.equal(source.calls, 2);
  });

  it('makes one load for concurrent misses', async () => {
    const store = createMarketCache({
      cache: sharedCache(),
      clock: fixedClock('2026-01-01T00:00:00Z'),
      lockTtlMs: 1_000,
      waitMs: 1_000,
    });
    const source = counter('v', 50);
    const answers = await Promise.all(Array.from({ length: 50 }, () => store.get('k', POLICY, source.load)));
    assert.ok(answers.every((a) => a.value === 'v'));
    assert.equal(source.calls, 1);
  });

  it('shares entries and loads between instances using the same cache', async () => {
    const cache = sharedCache();
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const a = createMarketCache({ cache, clock, lockTtlMs: 2_000, waitMs: 2_000 });
    const b = createMarketCache({ cache, clock, lockTtlMs: 2_000, waitMs: 2_000 });
    const source = counter('shared', 100);
    await a.get('k', POLICY, source.load);
    assert.equal((await b.get('k', POLICY, source.load)).value, 'shared');
    assert.equal(source.calls, 1, "the second instance found the first one's entry");

    clock.advance(6_000);
    const both = await Promise.all([a.get('k', POLICY, source.load), b.get('k', POLICY, source.load)]);
    assert.equal(source.calls, 2, 'one refresh for both instances');
    assert.equal(both[0].fetchedAt, both[1].fetchedAt);
  });

  it(
    'a waiting instance learns at once that the holder ' + 'failed: the same error, and no upstream call of its own',
    async () => {
      const cache = sharedCache();
      const clock = fixedClock('2026-01-01T00:00:00Z');
      const a = createMarketCache({ cache, clock, lockTtlMs: 10_000, waitMs: 5_000 });
      const b = createMarketCache({ cache, clock, lockTtlMs: 10_000, waitMs: 5_000 });
      let calls = 0;
      const failing = async () => {
        calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 500));
        throw upstreamDown();
      };
      const holder = assert.rejects(a.get('k', POLICY, failing), /HTTP 500/);
      // a holds the lock once its load has begun.
      await waitFor(() => calls === 1, "the holder's load");
      // Told of the failure: the holder's own error. Left to its 5 s wait, it would answer 504.
      await assert.rejects(
        b.get('k', POLICY, failing),
        (error: AppError) => error.status !== 504 && /HTTP 500/.test(error.message),
      );
      await holder;
      assert.equal(calls, 1, 'one upstream call across both instances');
    },
  );

  it(
    'a waiting instance whose holder takes too long answers ' + '504 after its wait, without calling the upstream',
    async () => {
      const cache = sharedCache();
      const clock = fixedClock('2026-01-01T00:00:00Z');
      const a = createMarketCache({ cache, clock, lockTtlMs: 10_000, waitMs: 300 });
      const b = createMarketCache({ cache, clock, lockTtlMs: 10_000, waitMs: 300 });
      // The holder's load ends only when the test says (or, should the waiter wrongly wait for it, after 10 s).
      let loadEnded = false;
      let endLoad!: () => void;
      const loadHeld = new Promise<void>((resolve) => (endLoad = resolve));
      const safety = setTimeout(() => {
        loadEnded = true;
        endLoad();
      }, 10_000);
      let calls = 0;
      const slow = async () => {
        calls += 1;
        await loadHeld;
        return 'late';
      };
      const holder = a.get('k', POLICY, slow);
      await waitFor(() => calls === 1, "the holder's load");
      await assert.rejects(b.get('k', POLICY, slow), (error: AppError) => error.status === 504);
      assert.equal(loadEnded, false, "the waiter answered after its own wait, while the holder's load still ran");
      clearTimeout(safety);
      endLoad();
      assert.equal((await holder).value, 'late');
      assert.equal(calls, 1);
    },
  );

  it('a load that outlives its lock leaves the lock another instance has taken since', async () => {
    const cache = sharedCache();
    const store = createMarketCache({ cache, clock: fixedClock('2026-01-01T00:00:00Z'), lockTtlMs: 50, waitMs: 50 });
    const slow = store.get('k', POLICY, counter('late', 200).load);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const other = await cache.acquire('market:lock:k', 10_000);
    assert.ok(other, "the slow load's lock has expired");
    assert.equal((await slow).value, 'late');
    assert.equal(await cache.acquire('market:lock:k', 10_000), undefined, 'the other instance still holds its lock');
  });

  it('serves the last entry flagged stale when the upstream fails, within the bound only', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMarketCache({ cache: sharedCache(), clock, lockTtlMs: 1_000, waitMs: 1_000 });
    await store.get('k', POLICY, async () => 'old');
    clock.advance(30_000);
    const stale = await store.get('k', POLICY, async () => {
      throw upstreamDown();
    });
    assert.deepEqual([stale.value, stale.stale, clock.now().getTime() - stale.fetchedAt], ['old', true, 30_000]);
    await assert.rejects(
      store.get('k', POLICY, async () => {
        throw notFound('Unknown symbol: X');
      }),
      /Unknown symbol/,
      'only upstream failures fall back',
    );
    clock.advance(30_001);
    await assert.rejects(
      store.get('k', POLICY, async () => {
        throw upstreamDown();
      }),
      /HTTP 500/,
    );
  });

  it('holds a bounded number of items in process memory, however many keys callers make up (decision 744)', async () => {
    const cache = sharedCache();
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMarketCache({ cache, clock, lockTtlMs: 1_000, waitMs: 1_000 });
    // A new pair or window per request, a thousand candles each: more than the bound between them.
    const keys = Math.ceil(HELD_ITEMS / 1000) + 50;
    const candles = (k: number) => Array.from({ length: 1000 }, (_, i) => ({ openTime: k * 1000 + i }));
    for (let k = 0; k < keys; k++) {
      const served = await store.get(`candles:${k}`, POLICY, async () => candles(k));
      // As a route does: an answer derived from each entry.
      store.derive(`ohlc:${k}`, [served.value], () => served.value.slice(-100));
    }
    const held = store.ages(Number.POSITIVE_INFINITY);
    assert.ok(held.length * 1000 <= HELD_ITEMS, `${held.length} entries of 1000 candles held`);
    assert.ok(
      held.some((a) => a.key === `candles:${keys - 1}`),
      'the newest entry is held',
    );
    if (cache.kind === 'memory')
      assert.equal(await cache.get('market:candles:0'), undefined, "the oldest left the process's cache too");
    const source = counter(candles(keys - 1));
    await store.get(`candles:${keys - 1}`, POLICY, source.load);
    assert.equal(source.calls, 0, 'the newest is still served without a load');
  });

  it('computes derived values once per entry', async () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const store = createMarketCache({ cache: sharedCache(), clock, lockTtlMs: 1_000, waitMs: 1_000 });
    let computed = 0;
    const view = async () => {
      const served = await store.get('rows', POLICY, async () => [3, 1, 2]);
      return store.derive('sorted', [served.value], () => {
        computed += 1;
        return [...served.value].sort();
      });
    };
    assert.deepEqual(await view(), [1, 2, 3]);
    assert.equal(await view(), await view());
    assert.equal(computed, 1);
    clock.advance(5_000);
    await view();
    assert.equal(computed, 2, 'a new entry is a new input');
    assert.deepEqual(
      store.ages().map((a) => [a.key, a.fresh]),
      [['rows', true]],
    );
  });
});
