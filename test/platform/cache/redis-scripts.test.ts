// The Redis cache's scripts go by their digest (decision 406): each is sent as EVAL the first time on a
// connection and as EVALSHA after, never its whole text on every call, and a Redis that lost its scripts
// (restart, failover: SCRIPT FLUSH here) costs one more command once. Counted on a real Redis through a
// loopback proxy that reads the commands clients send.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { after, before, describe, it } from '../../helpers/suite.ts';
import type { Cache } from '../../../src/platform/cache/cache.ts';
import { createRedisCache } from '../../../src/platform/cache/redis-cache.ts';
import { redisCommandCounter } from '../../fakes/redis-commands.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { withoutRedis } from '../../helpers/services.ts';

const REDIS_URL = process.env.REDIS_URL;
const NO_REDIS = withoutRedis('the scripts are sent to Redis (REDIS_URL=redis://127.0.0.1:6379)');

/** Each scripted operation of the cache once, with what it answers. */
async function everyScript(cache: Cache, round: number): Promise<unknown[]> {
  const lock = await cache.acquireNumbered('turn', 5_000, { key: 'seq', floor: 1_000, ttlMs: 60_000 });
  assert.ok(lock, 'the lock was free');
  await cache.release('turn', lock.token);
  const counted = await cache.incr('hits', 60_000);
  await cache.decr('hits');
  return [
    lock.number,
    counted.count,
    await cache.addWithin('weight', 10, 100, 60_000),
    await cache.addAllWithin({ key: 'pause', now: Date.now() }, [{ key: 'minute', amount: 5, cap: 100 }], 60_000),
    await cache.raiseTo('weight', 10 * round + 5, 60_000),
    await cache.subtract('weight', 5),
    await cache.addDecaying('bucket', 1, 100, 0.001),
    await cache.get('turn'),
  ];
}
const SCRIPTED_CALLS = 9;
const scripted = (sent: string[]) => sent.filter((name) => name !== 'GET');

describe('the Redis cache sends its scripts by digest', { skip: NO_REDIS }, () => {
  let proxy: TcpProxy;
  let direct: Redis;
  let cache: Cache & { connected(): Promise<boolean> };
  const counter = redisCommandCounter();

  before(async () => {
    const url = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    proxy.tap(counter.listen);
    direct = new Redis(REDIS_URL!);
    cache = createRedisCache(proxy.url(REDIS_URL!), { keyPrefix: `test:scripts:${randomUUID()}:` });
    assert.equal(await cache.connected(), true);
  });
  after(async () => {
    await cache?.close();
    await proxy?.close();
    direct?.disconnect();
  });

  it('EVAL the first time on the connection, EVALSHA after; SCRIPT FLUSH survived with one EVAL more each', async () => {
    counter.take();
    const first = await everyScript(cache, 1);
    assert.deepEqual(scripted(counter.take()), Array(SCRIPTED_CALLS).fill('EVAL'));

    const second = await everyScript(cache, 2);
    let sent = counter.takeCalls();
    assert.deepEqual(scripted(sent), Array(SCRIPTED_CALLS).fill('EVALSHA'), sent.join(' '));
    assert.deepEqual(
      sent.filter((name) => name === 'GET'),
      ['GET'],
    );

    // Lost scripts: a call refused (NOSCRIPT) sends its script again as EVAL, and answers as before. Every
    // call still begins with EVALSHA; how many needed the EVAL after it is not asserted: Redis's script
    // cache is shared with every other client, which may load a script again (or flush it) meanwhile.
    await direct.script('FLUSH');
    const third = await everyScript(cache, 3);
    sent = counter.takeCalls();
    assert.deepEqual(scripted(sent), Array(SCRIPTED_CALLS).fill('EVALSHA'), sent.join(' '));
    await everyScript(cache, 4);
    sent = counter.takeCalls();
    assert.deepEqual(scripted(sent), Array(SCRIPTED_CALLS).fill('EVALSHA'), sent.join(' '));

    // Same answers as the scripts gave sent in full: numbers growing, counters counting.
    const [n1, n2, n3] = [first[0], second[0], third[0]] as number[];
    assert.ok(n1! >= 1_000 && n2! > n1! && n3! > n2!, `${n1} ${n2} ${n3}`);
    assert.deepEqual(first.slice(1), [
      1,
      { added: true, count: 10 },
      { outcome: 'added', counts: [5] },
      15,
      undefined,
      { added: true, level: 1 },
      undefined,
    ]);
    assert.deepEqual(second.slice(2, 6), [
      { added: true, count: 20 },
      { outcome: 'added', counts: [10] },
      25,
      undefined,
    ]);
    assert.deepEqual(third.slice(2, 4), [
      { added: true, count: 30 },
      { outcome: 'added', counts: [15] },
    ]);
  });
});
