// One behaviour for both caches: the same tests run on process memory and, when REDIS_URL is set,
// on Redis (plus what only Redis can do: share values, locks and counters between instances).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from '../../helpers/suite.ts';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { createRedisCache } from '../../../src/platform/cache/redis-cache.ts';
import { withoutRedis } from '../../helpers/services.ts';

const REDIS_URL = process.env.REDIS_URL;
const NO_REDIS = withoutRedis('the Redis half of the cache tests runs with REDIS_URL=redis://127.0.0.1:6379');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const opened: Cache[] = [];
after(async () => {
  await Promise.all(opened.map((cache) => cache.close()));
});

function redisCache(prefix = `test:${randomUUID()}:`): Cache {
  const cache = createRedisCache(REDIS_URL!, prefix);
  opened.push(cache);
  return cache;
}

/** A loader that counts its calls and takes a while, so that concurrent misses overlap. */
function slowLoader<T>(value: T, ms = 60) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    load: async () => {
      calls++;
      await sleep(ms);
      return value;
    },
  };
}

function behaviour(name: string, make: () => Cache, skip: string | false = false) {
  describe(`${name} cache`, { skip }, () => {
    it(
      'adds weight only within a cap, raises to a reported ' + 'count, never lowers it, and subtracts down to zero',
      async () => {
        const cache = make();
        assert.deepEqual(await cache.addWithin('w', 20, 50, 10_000), { added: true, count: 20 });
        assert.deepEqual(await cache.addWithin('w', 30, 50, 10_000), { added: true, count: 50 });
        assert.deepEqual(
          await cache.addWithin('w', 1, 50, 10_000),
          { added: false, count: 50 },
          'over the cap: nothing added',
        );
        assert.equal(await cache.raiseTo('w', 45, 10_000), 50, 'a lower count never lowers ours');
        assert.equal(await cache.raiseTo('w', 70, 10_000), 70);
        await cache.subtract('w', 100);
        assert.equal(await cache.get<number>('w'), 0);
        await cache.subtract('absent', 5);
        assert.equal(await cache.get('absent'), undefined);
        assert.equal(await cache.raiseTo('fresh', 12, 10_000), 12);
      },
    );

    it('admits exactly what fits when many add at once', async () => {
      const cache = make();
      const answers = await Promise.all(Array.from({ length: 100 }, () => cache.addWithin('race', 7, 300, 10_000)));
      assert.equal(answers.filter((a) => a.added).length, 42, '42 × 7 = 294 ≤ 300 < 43 × 7');
      assert.equal(await cache.get<number>('race'), 294);
    });

    it('keeps a decaying counter: adds within its cap, drains over time, gives back and is raised', async () => {
      const cache = make();
      const answers = await Promise.all(Array.from({ length: 20 }, () => cache.addDecaying('d', 1, 10, 2)));
      const added = answers.filter((a) => a.added).length;
      assert.ok(added >= 10 && added <= 11, `what fits, and what drained meanwhile (${added})`);
      assert.equal((await cache.addDecaying('d', 1, 10, 2)).added, false, 'full');
      await sleep(600);
      const drained = await cache.addDecaying('d', 1, 10, 2);
      assert.equal(drained.added, true, `room again after draining (${drained.level})`);
      const given = await cache.addDecaying('d', -5, 10, 2);
      assert.ok(given.level <= drained.level - 5 + 0.1, 'a negative amount gives back');
      const raised = await cache.addDecaying('d', 10, 10, 2, true);
      assert.deepEqual([raised.added, raised.level], [true, 10], 'raised to the cap');
      assert.equal((await cache.addDecaying('d', 1, 10, 2)).added, false);
    });

    it('stores, reads and deletes JSON values', async () => {
      const cache = make();
      assert.equal(await cache.get('k'), undefined);
      await cache.set('k', { a: [1, 'two'], b: null }, 10_000);
      assert.deepEqual(await cache.get('k'), { a: [1, 'two'], b: null });
      await cache.del('k');
      assert.equal(await cache.get('k'), undefined);
    });

    it('forgets a value after its ttl', async () => {
      const cache = make();
      // A second to live: read back at once, it is there even on a busy machine; a timer never fires early.
      await cache.set('short', 'v', 1_000);
      assert.equal(await cache.get('short'), 'v');
      await sleep(1_100);
      assert.equal(await cache.get('short'), undefined);
    });

    it('wrap: 200 concurrent misses make one loader call, and all get its value', async () => {
      const cache = make();
      const loader = slowLoader({ price: '42.5' });
      const results = await Promise.all(Array.from({ length: 200 }, () => cache.wrap('ticker', 10_000, loader.load)));
      assert.equal(loader.calls, 1);
      assert.ok(results.every((r) => r.price === '42.5'));
      // And the next call is served from the cache.
      await cache.wrap('ticker', 10_000, loader.load);
      assert.equal(loader.calls, 1);
    });

    it('wrap: a failed load fails every waiter, caches nothing, and the next call loads again', async () => {
      const cache = make();
      let calls = 0;
      const failing = async () => {
        calls++;
        await sleep(30);
        throw new Error('upstream down');
      };
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => cache.wrap('flaky', 10_000, failing)));
      assert.ok(outcomes.every((o) => o.status === 'rejected'));
      assert.equal(calls, 1);
      assert.equal(await cache.wrap('flaky', 10_000, async () => 'recovered'), 'recovered');
    });

    it('wrap: the value expires with its ttl and is loaded again', async () => {
      const cache = make();
      const loader = slowLoader('v', 1);
      await cache.wrap('w', 60, loader.load);
      await sleep(150);
      await cache.wrap('w', 60, loader.load);
      assert.equal(loader.calls, 2);
    });

    it('incr counts within a fixed window, then starts again', async () => {
      const cache = make();
      // A one-second window: the three hits land in it even on a busy machine.
      const first = await cache.incr('hits', 1_000);
      assert.equal(first.count, 1);
      assert.ok(first.resetMs > 0 && first.resetMs <= 1_000);
      assert.equal((await cache.incr('hits', 1_000)).count, 2);
      const third = await cache.incr('hits', 1_000);
      assert.equal(third.count, 3);
      // The window is fixed: later hits do not push its end back.
      assert.ok(third.resetMs <= first.resetMs);
      await sleep(1_100);
      assert.equal((await cache.incr('hits', 1_000)).count, 1);
    });

    it('incr with extend starts the window again at every hit', async () => {
      const cache = make();
      const first = await cache.incr('busy', 60_000, undefined, true);
      await cache.incr('other', 60_000);
      // A later hit with a shorter window: the window is set again from it, not kept from the first.
      const second = await cache.incr('busy', 500, undefined, true);
      assert.equal(second.count, 2);
      assert.ok(second.resetMs <= 500 && first.resetMs > 500, `${first.resetMs} then ${second.resetMs}`);
      const fixed = await cache.incr('other', 500);
      assert.ok(fixed.resetMs > 500, 'without extend the first window stays');
    });

    it('decr gives one back to a live counter and does nothing to an absent one', async () => {
      const cache = make();
      await cache.incr('c', 10_000);
      await cache.incr('c', 10_000);
      await cache.decr('c');
      assert.equal((await cache.incr('c', 10_000)).count, 2);
      await cache.decr('absent');
      assert.equal((await cache.incr('absent', 10_000)).count, 1);
    });

    it('acquireNumbered: the lock and the next number together; a held lock answers nothing and leaves the number', async () => {
      const cache = make();
      const sequence = (floor: number) => ({ key: 'seq', floor, ttlMs: 60_000 });
      const first = await cache.acquireNumbered('turn', 10_000, sequence(1_000));
      assert.equal(first?.number, 1_000, 'a new sequence starts at the floor');
      assert.equal(await cache.acquireNumbered('turn', 10_000, sequence(5_000)), undefined, 'the lock is held');
      await cache.release('turn', first!.token);
      const second = await cache.acquireNumbered('turn', 10_000, sequence(900));
      assert.equal(second?.number, 1_001, 'a floor behind the last number: last + 1');
      await cache.release('turn', second!.token);
      assert.equal((await cache.acquireNumbered('turn', 10_000, sequence(2_000)))?.number, 2_000, 'a floor ahead');
      assert.equal(await cache.get<number>('seq'), 2_000, 'kept as a number that get reads');
      assert.equal(await cache.acquire('turn', 10_000), undefined, 'the same lock as acquire takes');
    });

    it('addAllWithin: nothing while the pause holds, every counter or none within its cap, the first over named', async () => {
      const cache = make();
      const pause = (now: number) => ({ key: 'pause', now });
      const counters = (amount: number) => [
        { key: 'mine', amount, cap: 30 },
        { key: 'all', amount, cap: 50 },
      ];
      assert.deepEqual(await cache.addAllWithin(pause(0), counters(20), 10_000), {
        outcome: 'added',
        counts: [20, 20],
      });
      assert.deepEqual(await cache.addAllWithin(pause(0), counters(20), 10_000), {
        outcome: 'refused',
        over: 0,
        count: 20,
      });
      await cache.addWithin('all', 25, 100, 10_000);
      assert.deepEqual(
        await cache.addAllWithin(pause(0), [{ key: 'other', amount: 10, cap: 30 }, ...counters(10).slice(1)], 10_000),
        { outcome: 'refused', over: 1, count: 45 },
      );
      assert.equal(await cache.get('other'), undefined, 'refused by the second: the first untouched');
      await cache.set('pause', { until: 5_000, reason: 'test' }, 10_000);
      assert.deepEqual(await cache.addAllWithin(pause(4_999), counters(1), 10_000), {
        outcome: 'paused',
        paused: { until: 5_000, reason: 'test' },
      });
      assert.deepEqual(await cache.addAllWithin(pause(4_999), [], 10_000), {
        outcome: 'paused',
        paused: { until: 5_000, reason: 'test' },
      });
      assert.deepEqual(await cache.addAllWithin(pause(5_000), [], 10_000), { outcome: 'added', counts: [] });
      assert.deepEqual(await cache.addAllWithin(pause(5_000), counters(1), 10_000), {
        outcome: 'added',
        counts: [21, 46],
      });
    });

    it('answers a ping', async () => {
      assert.equal(typeof (await make().ping()), 'number');
    });
  });
}

behaviour('memory', () => {
  const cache = createMemoryCache();
  opened.push(cache);
  return cache;
});
behaviour('redis', () => redisCache(), NO_REDIS);

describe('memory cache counters', () => {
  it('are never pushed out by cached values, however many are written', async () => {
    const cache = createMemoryCache(100);
    opened.push(cache);
    for (let i = 0; i < 5; i++) await cache.incr('login:pair:victim', 60_000);
    for (let i = 0; i < 1_000; i++) await cache.set(`stream-ticket:${i}`, { i }, 60_000);
    assert.equal(await cache.get('stream-ticket:0'), undefined, 'the control: old values were evicted');
    assert.equal((await cache.incr('login:pair:victim', 60_000)).count, 6, 'the counter kept its count');
  });

  it('refuse a new counter when the table is full of counters near their limits, rather than dropping one', async () => {
    const cache = createMemoryCache(10_000, 3);
    opened.push(cache);
    // At half of its limit or more, a counter is near it (two counts where the caller named no limit).
    for (const key of ['a', 'b']) for (let i = 1; i <= 2; i++) assert.equal((await cache.incr(key, 60_000)).count, i);
    for (let i = 1; i <= 3; i++) assert.equal((await cache.incr('c', 60_000, 5)).count, i);
    assert.equal((await cache.incr('d', 60_000)).count, Number.POSITIVE_INFINITY, 'a new key reads as over any limit');
    assert.deepEqual(await cache.addWithin('e', 1, 10, 60_000), { added: false, count: 10 });
    assert.equal((await cache.incr('a', 60_000)).count, 3, 'the old counters are all there');
    assert.equal((await cache.incr('c', 60_000, 5)).count, 4);
  });

  it('with 200,000 counters far from their limits, make room for a new one and keep those near theirs', async () => {
    const cache = createMemoryCache();
    opened.push(cache);
    // An attacker's guesses at the victim's pair: 4 of 5, near the limit.
    for (let i = 1; i <= 4; i++) await cache.incr('login:pair:victim', 60_000, 5);
    // Another's two attempts out of 10: far from it.
    for (let i = 1; i <= 2; i++) await cache.incr('login:pair:someone', 60_000, 10);
    // Then a flood of fresh keys, one attempt each, until the table is full.
    let refusedAt: number | undefined;
    for (let i = 0; i < 200_000 && refusedAt === undefined; i++) {
      if ((await cache.incr(`login:pair:flood-${i}`, 60_000, 5)).count !== 1) refusedAt = i;
    }
    assert.equal(refusedAt, undefined, 'no fresh key is refused');
    assert.equal((await cache.incr('login:pair:newcomer', 60_000, 5)).count, 1, 'nor is a newcomer after the flood');
    assert.equal(
      (await cache.incr('login:pair:victim', 60_000, 5)).count,
      5,
      'the counter near its limit kept its count',
    );
    assert.equal((await cache.incr('login:pair:someone', 60_000, 10)).count, 1, 'one far from it may start again');
    assert.equal((await cache.incr('login:pair:flood-0', 60_000, 5)).count, 1, 'as the flood did');
  });

  it('make room from expired counters when full', async () => {
    const cache = createMemoryCache(10_000, 2);
    opened.push(cache);
    await cache.incr('short', 30);
    await cache.incr('long', 60_000, 2); // at half its limit: near it, kept
    await sleep(60);
    assert.equal((await cache.incr('new', 60_000)).count, 1, 'the expired counter made room');
    assert.equal((await cache.incr('long', 60_000, 2)).count, 2);
  });
});

describe('redis cache shared by two instances', { skip: NO_REDIS }, () => {
  it('200 concurrent misses spread over two instances make one loader call', async () => {
    const prefix = `test:${randomUUID()}:`;
    const [a, b] = [redisCache(prefix), redisCache(prefix)];
    const loader = slowLoader('shared', 150);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).wrap('markets', 10_000, loader.load)),
    );
    assert.equal(loader.calls, 1);
    assert.ok(results.every((r) => r === 'shared'));
  });

  it('when the loading instance fails, a waiting one takes over and loads', async () => {
    const prefix = `test:${randomUUID()}:`;
    const [a, b] = [redisCache(prefix), redisCache(prefix)];
    // b must arrive while a holds the lock, so start it only once a's loader is running.
    let aLoading!: () => void;
    const aHoldsTheLock = new Promise<void>((resolve) => (aLoading = resolve));
    const failing = a.wrap('k', 10_000, async () => {
      aLoading();
      await sleep(100);
      throw new Error('upstream down');
    });
    await aHoldsTheLock;
    const taking = b.wrap('k', 10_000, async () => 'from b');
    await assert.rejects(failing, /upstream down/);
    assert.equal(await taking, 'from b');
  });

  it('counters are shared, and prefixes keep deployments apart', async () => {
    const prefix = `test:${randomUUID()}:`;
    const [a, b, other] = [redisCache(prefix), redisCache(prefix), redisCache()];
    await a.incr('login:ip:10.0.0.1', 60_000);
    assert.equal((await b.incr('login:ip:10.0.0.1', 60_000)).count, 2);
    assert.equal((await other.incr('login:ip:10.0.0.1', 60_000)).count, 1);
    await a.set('v', 1, 60_000);
    assert.equal(await b.get('v'), 1);
    assert.equal(await other.get('v'), undefined);
  });
});
