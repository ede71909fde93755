// Redis caches as the instances of a test have them, each through one loopback proxy that reads the
// commands they send (counted by test/fakes/redis-commands.ts). Call start() before use, close() after.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRedisCache } from '../../../src/platform/cache/redis-cache.ts';

type RedisCache = ReturnType<typeof createRedisCache>;
import { redisCommandCounter } from '../../fakes/redis-commands.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';

export function countedRedis(redisUrl: string, label: string) {
  const counter = redisCommandCounter();
  const caches: RedisCache[] = [];
  const prefix = `test:${label}:${randomUUID()}:`;
  let proxy: TcpProxy | undefined;
  return {
    counter,
    prefix,
    /** The proxy, to refuse or black-hole the instances' Redis. */
    get proxy(): TcpProxy {
      assert.ok(proxy, 'start() first');
      return proxy;
    },
    async start() {
      const url = new URL(redisUrl);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
      proxy.tap(counter.listen);
    },
    /**
     * A cache as an instance has it, through the counting proxy, connected before it is used. Past
     * `commandTimeoutMs` (300 ms unless given) a command counts Redis as away: a test that black-holes the
     * proxy wants it short; one that needs Redis to stay counted present on a loaded machine, longer.
     */
    async cache(options: { commandTimeoutMs?: number } = {}): Promise<RedisCache> {
      const cache = createRedisCache(this.proxy.url(redisUrl), {
        keyPrefix: prefix,
        commandTimeoutMs: options.commandTimeoutMs ?? 300,
        probeMs: 100,
      });
      caches.push(cache);
      assert.equal(await cache.connected(), true);
      return cache;
    },
    async close() {
      for (const cache of caches) await cache.close();
      await proxy?.close();
    },
  };
}
