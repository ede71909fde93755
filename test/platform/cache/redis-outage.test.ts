// Redis refused, frozen, cut and back, for real: the app's Redis client speaks to a real Redis
// through a loopback TCP proxy. Nothing waits on Redis longer than the command timeout, nothing
// answers 500, and everything goes back to Redis by itself once it answers again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from '../../helpers/suite.ts';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../../src/app.ts';
import { createRedisCache } from '../../../src/platform/cache/redis-cache.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import { createPlatform } from '../../../src/platform/platform.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { withoutRedis } from '../../helpers/services.ts';

const REDIS_URL = process.env.REDIS_URL;
const NO_REDIS = withoutRedis(
  'Redis outages are made through a TCP proxy in front of a real server ' + '(REDIS_URL=redis://127.0.0.1:6379)',
);
const COMMAND_TIMEOUT_MS = 200;
/** What the cache gives Redis's first connection at start (redis-cache.ts). */
const FIRST_CONNECTION_MS = 3_000;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

async function eventually(condition: () => Promise<boolean>, withinMs: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return performance.now() - started;
}

function logSink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    lines: () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; redis?: string }),
  };
}

describe('the cache while Redis is away', { skip: NO_REDIS }, () => {
  let proxy: TcpProxy;
  let direct: Redis;
  const prefix = `test:${randomUUID()}:`;
  before(async () => {
    const url = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    direct = new Redis(REDIS_URL!, { keyPrefix: prefix });
  });
  after(async () => {
    direct?.disconnect();
    await proxy?.close();
  });

  for (const fault of ['blackhole', 'refuse'] as const) {
    it(`${fault}: every operation answers within the command timeout, from memory, and returns to Redis by itself`, async () => {
      const log = logSink();
      const cache = createRedisCache(proxy.url(REDIS_URL!), {
        keyPrefix: prefix,
        commandTimeoutMs: COMMAND_TIMEOUT_MS,
        logger: createLogger('info', log.stream),
        probeMs: 100,
      });
      try {
        // Connected first: a write made while the first connection is still being opened goes to memory.
        assert.equal(await cache.connected(), true);
        await cache.set('k', 'from-redis', 60_000);
        assert.equal(await direct.get('k'), '"from-redis"');
        // This outage's lines only: on a busy machine the first connection's ready check can outlive
        // the command timeout, which is an outage of its own, logged and recovered before this one.
        const loggedBefore = log.lines().length;
        const outageLines = () => log.lines().slice(loggedBefore);
        if (fault === 'refuse') proxy.reset();
        await proxy.mode(fault);
        const answers = await Promise.all([
          timed(() => cache.get('k')),
          timed(() => cache.incr('counter', 60_000)),
          timed(() => cache.acquire('lock', 5_000)),
          timed(() => cache.set('other', 1, 60_000)),
        ]);
        // Without the command timeout a blackholed Redis is waited on for ever; the margin is for a busy machine.
        for (const { ms } of answers) assert.ok(ms < COMMAND_TIMEOUT_MS + 2_000, `answered in ${Math.round(ms)} ms`);
        assert.deepEqual(answers[1]!.value, { count: 1, resetMs: 60_000 });
        assert.equal(typeof answers[2]!.value, 'string', 'the lock is taken in memory');
        // Once Redis is known to be away, nothing waits on it at all: five increments in a row send it
        // no command (a blackholed connection still takes them, and each would wait a command timeout).
        assert.equal(cache.available(), false);
        let sentToRedis = 0;
        proxy.tap((chunk) => {
          if (/\beval\b/i.test(chunk.toString('latin1'))) sentToRedis += 1;
        });
        for (let i = 0; i < 5; i++) await cache.incr('counter', 60_000);
        proxy.tap();
        assert.equal(sentToRedis, 0, 'increments sent to Redis while it is known to be away');
        assert.equal((await cache.incr('counter', 60_000)).count, 7, 'each increment counted, in memory');
        await assert.rejects(cache.ping());
        const warnings = outageLines().filter((line) => line.level === 40);
        assert.equal(warnings.length, 1, `one warning per outage: ${JSON.stringify(warnings)}`);
        await proxy.mode('pass');
        await eventually(async () => (await cache.get('k')) === 'from-redis', 10_000, 'back on Redis');
        await cache.set('after', 'shared', 60_000);
        assert.equal(await direct.get('after'), '"shared"');
        assert.ok(outageLines().some((line) => line.msg === 'redis available again'));
      } finally {
        await proxy.mode('pass');
        await cache.close();
      }
    });
  }

  it('an unreachable REDIS_URL at start: one warning line with the password masked, memory meanwhile', async () => {
    // A port that takes each connection and closes it at once: Redis is never reached, and each
    // attempt the cache makes is seen here.
    let attempts = 0;
    const refusing = createServer((socket) => {
      attempts += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const { port } = refusing.address() as AddressInfo;
    const log = logSink();
    const url = `redis://app:s3cret-pass@127.0.0.1:${port}/0`;
    const cache = createRedisCache(url, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      logger: createLogger('info', log.stream),
    });
    try {
      // Not held up by the 3 s the start gives Redis's first connection: answered within one command
      // timeout, or the race says it waited.
      const answer = await Promise.race([
        cache.incr('x', 1_000),
        new Promise<'held up'>((resolve) => setTimeout(() => resolve('held up'), FIRST_CONNECTION_MS).unref()),
      ]);
      assert.notEqual(answer, 'held up');
      assert.equal(answer !== 'held up' && answer.count, 1);
      // What must not happen is a warning per retry: watch until the cache has tried twice more.
      const seen = attempts;
      await eventually(async () => attempts >= seen + 2, 10_000, 'two more connection attempts');
      const warnings = log.lines().filter((line) => line.level === 40);
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      assert.match(warnings[0]!.msg, /redis unreachable at start/);
      assert.equal(warnings[0]!.redis, `redis://****:****@127.0.0.1:${port}/0`);
      assert.ok(!log.lines().some((line) => JSON.stringify(line).includes('s3cret-pass')));
    } finally {
      await cache.close();
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});

describe('the app while Redis is away', { skip: NO_REDIS }, () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let app: FastifyInstance;
  let user: TestUser;
  before(async () => {
    t = await buildTestApp({ env: { MARKET_DATA_SOURCE: 'simulated' } });
    user = await signIn(t.app, t.database);
    const url = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    const config = { ...t.config, resilience: { ...t.config.resilience, redisCommandTimeoutMs: COMMAND_TIMEOUT_MS } };
    const platform = await createPlatform(
      { ...config, redisUrl: proxy.url(REDIS_URL!), redisKeyPrefix: `test:${randomUUID()}:` },
      { database: t.database, logger: createLogger('silent'), defaultMetrics: false },
    );
    app = await buildApp(platform);
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await proxy?.close();
    await t?.close();
  });

  const login = (password = user.password) =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password } });

  it(
    'frozen Redis: logins, wrong passwords and market routes answer as usual within a command ' +
      'timeout; /readyz says degraded',
    async () => {
      assert.equal((await login()).statusCode, 200);
      assert.equal((await app.inject({ method: 'GET', url: '/api/v1/market/prices?symbols=BTCUSDT' })).statusCode, 200);
      await proxy.mode('blackhole');
      const answers = await Promise.all([
        timed(() => login()),
        timed(() => login('wrong-password')),
        timed(() => app.inject({ method: 'GET', url: '/api/v1/market/prices?symbols=BTCUSDT' })),
      ]);
      assert.deepEqual(
        answers.map(({ value }) => value.statusCode),
        [200, 401, 200],
      );
      // Without the command timeout a blackholed Redis would hold these requests for ever; the margin
      // covers a login's password hashing on a busy machine.
      for (const { ms } of answers) assert.ok(ms < COMMAND_TIMEOUT_MS + 3_000, `answered in ${Math.round(ms)} ms`);
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.equal(ready.json().status, 'degraded');
      assert.equal(ready.json().cache.status, 'down');
      // The throttle still counts, in the database (decision 455): the sixth attempt for one e-mail is refused.
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await login('wrong-password')).statusCode);
      assert.equal(statuses.at(-1), 429);
      assert.ok(!statuses.includes(500));
      await proxy.mode('pass');
      await eventually(
        async () => (await app.inject({ method: 'GET', url: '/readyz' })).json().status === 'ready',
        10_000,
        'ready again',
      );
    },
  );
});
