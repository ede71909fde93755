// The counters that stop guessing stay shared while Redis is away (decision 455): two instances of the
// service on one Redis, reached through a loopback TCP proxy that cuts it for real, and one database.
// Wrong codes and wrong passwords spread over both instances during the outage are refused at the
// limits' totals, and what the outage counted still holds once Redis is back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { STEP_UP_LIMITS } from '../../../src/modules/auth/second-factor-attempts.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import { createPlatform, type Platform } from '../../../src/platform/platform.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { TEST_PASSWORD_COST } from '../../helpers/password-cost.ts';
import { withoutPostgres, withoutRedis } from '../../helpers/services.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import {
  buildTestApp,
  newClientAddress,
  signIn,
  testDatabaseUrl,
  type TestApp,
  type TestUser,
} from '../../helpers/test-app.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';

const REDIS_URL = process.env.REDIS_URL;
const NO_REDIS = withoutRedis('a Redis outage is made through a TCP proxy in front of a real server');
/**
 * Redis is cut by a reset and a refusal, which fail commands at once: the bound matters only to a
 * loaded machine, where a shorter one would start outages of its own (and the healthy path would not be).
 */
const COMMAND_TIMEOUT_MS = 2_000;
const CODES_LOCKED = 'Too many wrong two-factor codes in this session; try again later';
const LOGINS_LOCKED = 'Too many login attempts; try again later';

async function eventually(condition: () => Promise<boolean>, withinMs: number, what: string): Promise<void> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('guard counters across two instances while Redis is away', { skip: NO_REDIS }, () => {
  const clock = fixedClock('2026-03-02T10:00:05Z');
  let t: TestApp;
  let proxy: TcpProxy;
  const platforms: Platform[] = [];
  /** The two instances: one Redis (through the proxy, one key prefix), one database. */
  const apps: FastifyInstance[] = [];

  before(async () => {
    t = await buildTestApp({ clock });
    const url = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    const config = { ...t.config, resilience: { ...t.config.resilience, redisCommandTimeoutMs: COMMAND_TIMEOUT_MS } };
    const redisKeyPrefix = `test:${randomUUID()}:`;
    for (let i = 0; i < 2; i++) {
      const platform = await createPlatform(
        { ...config, redisUrl: proxy.url(REDIS_URL!) },
        {
          database: t.database,
          clock,
          redisKeyPrefix,
          logger: createLogger('silent'),
          defaultMetrics: false,
          passwordCost: TEST_PASSWORD_COST,
        },
      );
      platforms.push(platform);
      const app = await buildApp(platform);
      await app.ready();
      apps.push(app);
    }
    // On a busy machine the first connection's ready check can outlive the command timeout: an outage of its own.
    await bothOnRedis();
  });
  after(async () => {
    for (const app of apps) await app.close();
    await proxy?.close();
    await t?.close();
  });

  const post = (instance: number, url: string, payload: object, headers: Record<string, string> = {}, at?: string) =>
    apps[instance]!.inject({ method: 'POST', url, payload, headers, remoteAddress: at });
  const codeAt = (secret: string) =>
    referenceTotp(Buffer.from(decodeBase32(secret)), Math.floor(clock.now().getTime() / 30_000) * 30, 6);
  const nextStep = () => clock.set(new Date((Math.floor(clock.now().getTime() / 30_000) + 1) * 30_000 + 5_000));
  const wrongCode = (secret: string) => (codeAt(secret) === '000000' ? '111111' : '000000');

  async function cutRedis(): Promise<void> {
    proxy.reset();
    await proxy.mode('refuse');
  }
  async function restoreRedis(): Promise<void> {
    await proxy.mode('pass');
    await bothOnRedis();
  }
  async function bothOnRedis(): Promise<void> {
    await eventually(
      async () => {
        for (const app of apps)
          if ((await app.inject({ method: 'GET', url: '/readyz' })).json().status !== 'ready') return false;
        return true;
      },
      15_000,
      'both instances back on Redis',
    );
  }
  const databaseCount = async (key: string) =>
    (await t.database.rows<{ count: number }>(sql`SELECT count FROM guard_counters WHERE key = ${key}`))[0]?.count;

  async function enrolled(): Promise<TestUser & { secret: string }> {
    const user = await signIn(apps[0]!, t.database);
    const setup = await post(0, '/api/auth/2fa/setup', { password: user.password }, user.headers);
    assert.equal(setup.statusCode, 200, setup.body);
    const { secret } = setup.json<{ secret: string }>();
    assert.equal((await post(0, '/api/auth/2fa/enable', { code: codeAt(secret) }, user.headers)).statusCode, 200);
    nextStep();
    return { ...user, secret };
  }

  it('the healthy path counts in Redis and sends the database nothing', async () => {
    assert.equal((await t.database.rows(sql`SELECT 1 FROM guard_counters`)).length, 0);
    const user = await signIn(apps[0]!, t.database);
    // A process owes one look at the table after its start: done by a first attempt on each instance.
    for (let i = 0; i < 2; i++)
      assert.equal((await post(i, '/api/auth/login', { email: user.email, password: 'wrong' })).statusCode, 401);
    const recorded = recordStatements(t.database);
    try {
      for (let i = 0; i < 2; i++) {
        const wrong = await post(i, '/api/auth/login', { email: user.email, password: 'wrong' }, {}, '10.1.1.1');
        assert.equal(wrong.statusCode, 401, wrong.body);
      }
    } finally {
      recorded.stop();
    }
    assert.deepEqual(
      recorded.texts.filter((text) => /guard_counters/.test(text)),
      [],
    );
    assert.equal((await t.database.rows(sql`SELECT 1 FROM guard_counters`)).length, 0);
  });

  it('wrong codes spread over both instances are locked at 5 in total, and still after Redis returns', async () => {
    const user = await enrolled();
    const stepUp = (instance: number, code: string) =>
      post(instance, '/api/auth/2fa/step-up', { code }, user.headers, newClientAddress());
    await cutRedis();
    try {
      const wrong = wrongCode(user.secret);
      for (let i = 0; i < STEP_UP_LIMITS.perWindow - 1; i++) assertDetail(await stepUp(i % 2, wrong), 401);
      // A right code gives its own attempt back (decisions 197, 733), on the instance that took it or not.
      const right = await stepUp(0, codeAt(user.secret));
      assert.equal(right.statusCode, 200, right.body);
      nextStep();
      assertDetail(await stepUp(1, wrong), 401);
      for (const instance of [0, 1]) assertDetail(await stepUp(instance, codeAt(user.secret)), 429, CODES_LOCKED);
      // Counted in the database (refused attempts too, as Redis's window counts them), nowhere else.
      const sid = JSON.parse(Buffer.from(user.token.split('.')[1]!, 'base64url').toString()).sid as string;
      assert.ok((await databaseCount(`two-factor:step-up:session:${sid}`))! > STEP_UP_LIMITS.perWindow);
    } finally {
      await restoreRedis();
    }
    // Back on Redis, which counted none of them: the outage's count still holds on both instances.
    for (const instance of [0, 1]) assertDetail(await stepUp(instance, codeAt(user.secret)), 429, CODES_LOCKED);
  });

  it('wrong passwords from one address spread over both instances are refused at 5, and still after Redis returns', async () => {
    const user = await signIn(apps[0]!, t.database);
    const address = newClientAddress();
    const login = (instance: number, password: string) =>
      post(instance, '/api/auth/login', { email: user.email, password }, {}, address);
    await cutRedis();
    try {
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++)
        assert.equal((await login(i % 2, 'wrong')).statusCode, 401);
      for (const instance of [0, 1]) assertDetail(await login(instance, user.password), 429, LOGINS_LOCKED);
    } finally {
      await restoreRedis();
    }
    for (const instance of [0, 1]) assertDetail(await login(instance, user.password), 429, LOGINS_LOCKED);
  });

  it('an ended window counts as zero, and ended windows are pruned once Redis is back', async () => {
    const counters = platforms[0]!.guardCounters;
    const key = `test:ended:${randomUUID()}`;
    await cutRedis();
    try {
      assert.equal((await counters.incr(key, 1)).count, 1);
      await eventually(
        async () =>
          (await t.database.rows(sql`SELECT 1 FROM guard_counters WHERE key = ${key} AND window_end <= now()`))
            .length === 1,
        5_000,
        'the window ended',
      );
      assert.equal((await counters.incr(key, 60_000)).count, 1, 'an ended window starts again at one');
      assert.equal((await counters.incr(key, 1)).count, 2);
      await counters.decr(key);
      assert.equal(await databaseCount(key), 1);
      await counters.del(key);
      assert.equal(await databaseCount(key), undefined);
      assert.equal((await counters.incr(key, 1)).count, 1);
    } finally {
      await restoreRedis();
    }
    await eventually(
      async () =>
        (await t.database.rows(sql`SELECT 1 FROM guard_counters WHERE key = ${key} AND window_end <= now()`)).length ===
        1,
      5_000,
      'the window ended',
    );
    // The first operation back on Redis looks at the table once: ended windows are deleted then.
    await counters.incr(`test:after:${randomUUID()}`, 60_000);
    assert.equal(await databaseCount(key), undefined);
  });

  it('ended windows are pruned during the outage by the increments themselves; live ones and a lock stay', async () => {
    const counters = platforms[0]!.guardCounters;
    const ended = Array.from({ length: 3 }, () => `test:ended:${randomUUID()}`);
    const live = `test:live:${randomUUID()}`;
    const user = await signIn(apps[0]!, t.database);
    const address = newClientAddress();
    const login = (instance: number, password: string) =>
      post(instance, '/api/auth/login', { email: user.email, password }, {}, address);
    const rowsOf = async (keys: string[]) =>
      (await t.database.rows<{ key: string }>(sql`SELECT key FROM guard_counters WHERE key IN ${keys}`)).map(
        (row) => row.key,
      );
    await cutRedis();
    try {
      assert.equal((await counters.incr(live, 60_000)).count, 1);
      // Written together, with a window longer than their writing: an increment deletes ended rows of other keys.
      for (const counted of await Promise.all(ended.map((key) => counters.incr(key, 1_000))))
        assert.equal(counted.count, 1);
      assert.deepEqual((await rowsOf(ended)).sort(), [...ended].sort());
      await eventually(
        async () =>
          (await t.database.rows(sql`SELECT 1 FROM guard_counters WHERE key IN ${ended} AND window_end <= now()`))
            .length === ended.length,
        5_000,
        'the windows ended',
      );
      // Still away: no instance has been back on Redis to look at the table, only increments ran since.
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++)
        assert.equal((await login(i % 2, 'wrong')).statusCode, 401);
      assert.deepEqual(await rowsOf(ended), [], 'the ended windows are gone during the outage');
      assert.deepEqual(await rowsOf([live]), [live]);
      assert.equal(await databaseCount(live), 1);
      for (const instance of [0, 1]) assertDetail(await login(instance, user.password), 429, LOGINS_LOCKED);
      assert.equal((await apps[0]!.inject({ method: 'GET', url: '/readyz' })).json().status === 'ready', false);
    } finally {
      await restoreRedis();
    }
  });
});

describe('guard counters while Redis and the database are both away', {
  skip: NO_REDIS || withoutPostgres('the database is cut through a TCP proxy in front of a real PostgreSQL'),
}, () => {
  let t: TestApp;
  let redisProxy: TcpProxy;
  let databaseProxy: TcpProxy;
  let database: Database;
  let app: FastifyInstance;
  before(async () => {
    t = await buildTestApp();
    const databaseUrl = new URL((await testDatabaseUrl())!);
    databaseProxy = await startTcpProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port || 5432) });
    database = await openDatabase({
      url: databaseProxy.url(databaseUrl.toString()),
      queryTimeoutMs: 2_000,
      connectTimeoutMs: 1_000,
    });
    const redisUrl = new URL(REDIS_URL!);
    redisProxy = await startTcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    const config = { ...t.config, resilience: { ...t.config.resilience, redisCommandTimeoutMs: COMMAND_TIMEOUT_MS } };
    const platform = await createPlatform(
      { ...config, redisUrl: redisProxy.url(REDIS_URL!) },
      { database, logger: createLogger('silent'), defaultMetrics: false, passwordCost: TEST_PASSWORD_COST },
    );
    app = await buildApp(platform);
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await database?.close();
    await redisProxy?.close();
    await databaseProxy?.close();
    await t?.close();
  });

  it('a sign-in answers 503 "Database unavailable", as without Redis, never 500', async () => {
    const user = await signIn(t.app, t.database);
    redisProxy.reset();
    await redisProxy.mode('refuse');
    databaseProxy.reset();
    await databaseProxy.mode('refuse');
    try {
      const answer = await app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password: user.password },
      });
      assert.equal(answer.statusCode, 503, answer.body);
      assert.deepEqual(answer.json(), { detail: 'Database unavailable' });
    } finally {
      await databaseProxy.mode('pass');
      await redisProxy.mode('pass');
    }
  });
});
