// A venue call's admission (decision 395): the breaker, the user's share and the venue's minute checked
// and counted in one Lua script, one round trip to Redis, counted on a real Redis through a loopback
// proxy that reads the commands clients send. Admitted, refused by the share, refused by the minute or
// by an open breaker: one command each; the shared cap holds across two instances calling at once; a
// Redis that lost its scripts costs one more command once; a Redis past the bound is counted in memory.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import {
  BudgetRefusal,
  createVenueBudgets,
  UserShareRefusal,
  type VenueBudget,
} from '../../../src/platform/venue-budget/venue-budget.ts';
import type { KeyLimit } from '../../../src/platform/venue-budget/key-limits.ts';
import { guardedFetch } from '../../../src/platform/venue-budget/guarded-fetch.ts';
import { countedRedis } from './counted-redis.ts';
import { withoutRedis } from '../../helpers/services.ts';
import { waitFor } from '../../helpers/wait.ts';

const REDIS_URL = process.env.REDIS_URL;
const NO_REDIS = withoutRedis('the shared budget is counted in Redis (REDIS_URL=redis://127.0.0.1:6379)');
/** A second into a minute: no call here waits for the next one (its wait bound is far shorter). */
const START = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
const LIMIT = 1200;
/** 80 % of the limit; a user's share is a quarter of it. */
const CAP = 960;
const USER_CAP = 240;
const WEIGHT = 20;

/** One instance's budget of a venue whose requests weigh 20 and whose limit is known (no read of it per call). */
function instance(cache: Cache, egress: string, clock = fixedClock(START)): VenueBudget {
  const budget = createVenueBudgets({
    cache,
    clock,
    settings: { share: 0.8, maxWaitMs: 200, egress, userShare: 0.25, sharedTimeoutMs: 300 },
  }).venue('binance');
  budget.describe({
    label: 'Binance',
    weights: { defaultLimit: LIMIT, weigh: () => WEIGHT, usedWeight: () => undefined },
  });
  budget.setLimit(LIMIT);
  return budget;
}

const refusal = (call: Promise<void>) =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('in process memory', () => {
  it('the same admission: the share, then the minute, then the breaker', async () => {
    const budget = instance(createMemoryCache(), 'memory');
    for (let i = 0; i < USER_CAP / WEIGHT; i++) await budget.acquire(WEIGHT, 'greedy');
    assert.ok((await refusal(budget.acquire(WEIGHT, 'greedy'))) instanceof UserShareRefusal);
    for (const user of ['b', 'c', 'd']) for (let i = 0; i < USER_CAP / WEIGHT; i++) await budget.acquire(WEIGHT, user);
    const full = await refusal(budget.acquire(WEIGHT, 'e'));
    assert.ok(full instanceof BudgetRefusal && full.reason === 'budget');
    assert.equal(budget.snapshot().usedWeight1m, CAP);
    await budget.trip(429, 30_000);
    const open = await refusal(budget.acquire(0));
    assert.ok(open instanceof BudgetRefusal && open.reason === 'breaker');
  });
});

describe('on Redis: one round trip per call', { skip: NO_REDIS }, () => {
  let direct: Redis;
  const redis = countedRedis(REDIS_URL ?? '', 'budget-trips');
  const { counter, prefix } = redis;
  const instanceCache = () => redis.cache();
  before(async () => {
    await redis.start();
    direct = new Redis(REDIS_URL!);
  });
  after(async () => {
    await redis.close();
    direct?.disconnect();
  });

  it("an admitted call, one refused by the user's share and one refused by the minute: one command each", async () => {
    const egress = randomUUID();
    const budget = instance(await instanceCache(), egress);
    // The limit's write, and the script's first load on this connection (EVAL, then EVALSHA).
    await budget.acquire(WEIGHT, 'warm-up');
    counter.take();

    for (let i = 1; i < USER_CAP / WEIGHT; i++) await budget.acquire(WEIGHT, 'warm-up');
    let sent = counter.takeCalls();
    assert.deepEqual(sent, Array(USER_CAP / WEIGHT - 1).fill('EVALSHA'), sent.join(' '));

    assert.ok((await refusal(budget.acquire(WEIGHT, 'warm-up'))) instanceof UserShareRefusal);
    sent = counter.takeCalls();
    assert.deepEqual(sent, ['EVALSHA'], sent.join(' '));

    for (const user of ['b', 'c', 'd']) for (let i = 0; i < USER_CAP / WEIGHT; i++) await budget.acquire(WEIGHT, user);
    counter.take();
    const full = await refusal(budget.acquire(WEIGHT, 'e'));
    assert.ok(full instanceof BudgetRefusal && full.reason === 'budget', String(full));
    assert.match(full.message, /used up \(960 of 960\)/);
    sent = counter.takeCalls();
    assert.deepEqual(sent, ['EVALSHA'], sent.join(' '));
    // Refused by the minute, the call took nothing from its user's share (nothing to give back).
    const minute = Math.floor(START.getTime() / 60_000);
    assert.equal(await direct.get(`${prefix}venue-budget:${egress}:binance:u:${minute}:e`), null);
    assert.equal(await direct.get(`${prefix}venue-budget:${egress}:binance:w:${minute}`), String(CAP));
  });

  it('a call while the breaker is open is refused in one command, the platform own calls too', async () => {
    const budget = instance(await instanceCache(), randomUUID());
    await budget.acquire(WEIGHT);
    await budget.trip(429, 30_000);
    counter.take();
    for (const [weight, user] of [
      [WEIGHT, 'u'],
      [WEIGHT, undefined],
      [0, undefined],
    ] as const) {
      const open = await refusal(budget.acquire(weight, user));
      assert.ok(open instanceof BudgetRefusal && open.reason === 'breaker', String(open));
      assert.match(open.message, /not being called for 30 s after HTTP 429/);
    }
    const sent = counter.takeCalls();
    assert.deepEqual(sent, ['EVALSHA', 'EVALSHA', 'EVALSHA'], sent.join(' '));
  });

  it("a call signed with a key that has its own limits: the admission and the key's counter, no second read of the breaker", async () => {
    const limits: KeyLimit[] = [{ name: 'private', cost: 1, max: 15, perSecond: 0.33, describes: 'call counter' }];
    for (const perAccount of [false, true]) {
      const egress = randomUUID();
      const budget = instance(await instanceCache(), egress);
      budget.describe({
        label: 'Kraken',
        weights: { defaultLimit: LIMIT, weigh: () => WEIGHT, usedWeight: () => undefined },
        keyLimits: { of: () => limits, exceeded: () => false, perAccount },
      });
      // Bybit's keys are counted under their account, once the venue said which (decision 281).
      if (perAccount) await budget.learnKeyAccount('key-digest', 'uid-1');
      await budget.acquire(WEIGHT, 'u');
      await budget.acquireKey('key-digest', limits);
      counter.take();
      for (let i = 0; i < 3; i++) {
        await budget.acquire(WEIGHT, 'u');
        await budget.acquireKey('key-digest', limits);
      }
      const sent = counter.takeCalls();
      assert.deepEqual(sent, Array(6).fill('EVALSHA'), `${perAccount ? 'per account' : 'per key'}: ${sent.join(' ')}`);
      const counted = perAccount ? 'account:uid-1' : 'key-digest';
      const level = await direct.hget(`${prefix}venue-budget:${egress}:binance:k:${counted}:private`, 'level');
      assert.ok(Number(level) > 3, `the key's four calls counted where its venue counts them (${level})`);

      // An open breaker still refuses the call before its key's counter is drawn on (decisions 110, 255).
      await budget.trip(429, 30_000);
      counter.take();
      const open = await refusal(budget.acquire(WEIGHT, 'u'));
      assert.ok(open instanceof BudgetRefusal && open.reason === 'breaker', String(open));
      assert.deepEqual(counter.takeCalls(), ['EVALSHA']);
    }
  });

  it('two instances calling at once never take more than the shared cap between them', async () => {
    const egress = randomUUID();
    const a = instance(await instanceCache(), egress);
    const b = instance(await instanceCache(), egress);
    const calls = Array.from({ length: 120 }, (_, i) => refusal((i % 2 ? a : b).acquire(WEIGHT, `user-${i % 8}`)));
    const outcomes = await Promise.all(calls);
    const admitted = outcomes.filter((o) => o === undefined).length;
    assert.equal(admitted, CAP / WEIGHT, `${admitted} calls of weight ${WEIGHT} admitted within ${CAP}`);
    assert.ok(outcomes.every((o) => o === undefined || o instanceof BudgetRefusal || o instanceof UserShareRefusal));
  });

  it('a Redis that lost its scripts costs one more command once (EVALSHA refused, then EVAL)', async () => {
    const budget = instance(await instanceCache(), randomUUID());
    await budget.acquire(WEIGHT, 'u');
    await budget.acquire(WEIGHT, 'u');
    // As after a restart or a failover: the script cache is empty; ioredis sends the script itself.
    await direct.script('FLUSH');
    counter.take();
    await budget.acquire(WEIGHT, 'u');
    // EVAL follows unless another client on this Redis (a test running beside this one) loaded the
    // script again between the flush and this call.
    const sent = counter.take();
    assert.ok(['EVALSHA EVAL', 'EVALSHA'].includes(sent.join(' ')), sent.join(' '));
    await budget.acquire(WEIGHT, 'u');
    assert.deepEqual(counter.takeCalls(), ['EVALSHA']);
    assert.equal(budget.snapshot().usedWeight1m, 4 * WEIGHT);
  });

  it('a Redis that does not answer within the bound: the call is counted in this instance alone, then shared again', async () => {
    const cache = await instanceCache();
    const budget = instance(cache, randomUUID());
    await budget.acquire(WEIGHT, 'u');
    assert.equal(budget.snapshot().scope, 'shared');
    await redis.proxy.mode('blackhole');
    try {
      const started = performance.now();
      await budget.acquire(WEIGHT, 'u');
      assert.ok(performance.now() - started < 3_000, 'answered after the bound, not after Redis');
      assert.equal(budget.snapshot().scope, 'local');
    } finally {
      await redis.proxy.mode('pass');
    }
    await waitFor(() => cache.available(), 'the cache finding Redis again');
    counter.take();
    await budget.acquire(WEIGHT, 'u');
    assert.equal(budget.snapshot().scope, 'shared');
    assert.ok(['EVALSHA', 'EVAL'].includes(counter.take().join(' ')));
  });

  it("a call answers without waiting for the venue's own count to reach Redis; the next call counts on top of it", async () => {
    const egress = randomUUID();
    const budget = createVenueBudgets({
      cache: await instanceCache(),
      clock: fixedClock(START),
      settings: { share: 0.8, maxWaitMs: 200, egress, sharedTimeoutMs: 300 },
    }).venue('binance');
    budget.describe({
      label: 'Binance',
      weights: {
        defaultLimit: LIMIT,
        weigh: () => WEIGHT,
        usedWeight: (headers) => (headers.has('x-used') ? Number(headers.get('x-used')) : undefined),
      },
    });
    budget.setLimit(LIMIT);
    await budget.acquire(WEIGHT, 'u');
    // The venue answers with its count, and from then on Redis holds every command it is sent.
    const venue: typeof fetch = async () => {
      await redis.proxy.mode('blackhole');
      return Response.json({}, { headers: { 'x-used': '500' } });
    };
    try {
      const answer = await guardedFetch(budget, venue, { user: 'u' })('http://127.0.0.1/api/v3/order');
      assert.equal(answer.status, 200);
      // Answered while the raise is on its way: not after Redis, nor after the bound and this instance's count.
      assert.deepEqual([budget.snapshot().usedWeight1m, budget.snapshot().scope], [500, 'shared']);
    } finally {
      await redis.proxy.mode('pass');
    }
    const window = `${prefix}venue-budget:${egress}:binance:w:${Math.floor(START.getTime() / 60_000)}`;
    await waitFor(async () => (await direct.get(window)) === '500', "the venue's count in Redis");
    await budget.acquire(WEIGHT, 'u');
    assert.equal(await direct.get(window), String(500 + WEIGHT));
  });
});
