// Two overlapping runs of one job never both run: in one process (any database), and across two
// instances sharing PostgreSQL (two pools, two apps), where the advisory lock decides.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../../src/app.ts';
import { JOB_LOCK_NAMESPACE } from '../../../src/modules/jobs/job-lock.ts';
// Run records: GET /api/scheduled/health shows only each job's newest run, not how many ran or their stamps.
import { scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import { createPlatform } from '../../../src/platform/platform.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { startTcpProxy } from '../../fakes/tcp-proxy.ts';
import { buildTestApp, resetDatabase, signIn, testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../market/market-fixtures.ts';
import { ago, HOUR, JOB_SECRET, NOW, trigger } from './jobs-fixtures.ts';
import type { JobName } from '../../../src/modules/jobs/jobs.domain.ts';

const JOB = 'strategy-autopilot/evaluate';
const NO_POSTGRES = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set: overlap across instances needs PostgreSQL and two real connections';

describe('overlapping runs', () => {
  let binance: BinanceFake;
  let t: TestApp;
  before(async () => {
    binance = await startBinanceFake();
    t = await buildTestApp({ clock: fixedClock(NOW), env: { SCHEDULED_JOB_SECRET: JOB_SECRET, BINANCE_API_URL: binance.url, MARKET_UPSTREAM_TIMEOUT_MS: '3000' } });
  });
  beforeEach(() => resetDatabase(t.database));
  after(async () => {
    await t.close();
    await binance.close();
  });

  /**
   * One matured intel event whose candle requests the fake holds back, so a run lasts a while. Each
   * test uses its own symbol: candles already fetched would come from the market cache.
   */
  async function slowRunAhead(symbol: string): Promise<void> {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/command-center/intel',
      headers: admin.headers,
      payload: { event_type: 'x', asset: symbol.replace('USDT', ''), symbol, direction: 'up', source: 's', strength: 0.5, detected_at: ago(30 * HOUR).toISOString() },
    });
    assert.equal(created.statusCode, 201, created.body);
    binance.delay(1_000, { times: 2, pathPrefix: '/api/v3/klines' });
  }

  async function runsOf(job: JobName) {
    return t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.job, job));
  }

  it('skips the second of two overlapping runs in one instance, answering 200 skipped and recording it', async () => {
    await slowRunAhead('LTCUSDT');
    const klines = binance.countRequests('/api/v3/klines');
    const first = trigger(t.app, JOB);
    await waitFor(() => binance.countRequests('/api/v3/klines') > klines, 5_000, 'the first run to reach the market');
    const second = await trigger(t.app, JOB);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.json().status, 'skipped');
    assert.equal(second.json().reason, 'another run of this job is in progress');
    assert.equal(second.json().result, undefined);
    const done = await first;
    assert.equal(done.json().status, 'succeeded', done.body);
    assert.equal(done.json().result.intel.scored, 1);
    const runs = await runsOf(JOB);
    assert.deepEqual(runs.map((r) => r.status).sort(), ['skipped', 'succeeded']);
    assert.deepEqual(runs.find((r) => r.status === 'skipped')!.result, { reason: 'another run of this job is in progress' });
    // Other jobs are not held up by it, and once it is over the job runs again.
    assert.equal((await trigger(t.app, JOB)).json().status, 'succeeded');
  });

  describe('two instances on one PostgreSQL database', () => {
    let other: { app: FastifyInstance; database: Database } | undefined;
    before(async () => {
      if (NO_POSTGRES) return;
      // A second instance: its own pool, its own platform and app, the same database.
      const database = await openDatabase({ url: (await testDatabaseUrl())!, poolSize: 3 });
      const platform = await createPlatform(t.config, { database, cache: createMemoryCache(), clock: fixedClock(NOW), logger: createLogger('silent'), defaultMetrics: false });
      const app = await buildApp(platform);
      await app.ready();
      other = { app, database };
    });
    after(async () => {
      await other?.app.close();
      await other?.database.close();
    });

    it('lets only one of two overlapping runs on two instances run; the other answers skipped', { skip: NO_POSTGRES }, async () => {
      await slowRunAhead('LINKUSDT');
      const klines = binance.countRequests('/api/v3/klines');
      const first = trigger(t.app, JOB);
      await waitFor(() => binance.countRequests('/api/v3/klines') > klines, 5_000, 'the first run to reach the market');
      const second = await trigger(other!.app, JOB);
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().status, 'skipped');
      assert.equal((await first).json().status, 'succeeded');
      assert.deepEqual((await runsOf(JOB)).map((r) => r.status).sort(), ['skipped', 'succeeded']);
    });

    it('skips while another connection holds the job lock, and runs once it is released', { skip: NO_POSTGRES }, async () => {
      const client = new pg.Client({ connectionString: (await testDatabaseUrl())! });
      await client.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1::int, hashtext($2))', [JOB_LOCK_NAMESPACE, 'cleanup-expired-tokens']);
        for (const app of [t.app, other!.app]) assert.equal((await trigger(app, 'cleanup-expired-tokens')).json().status, 'skipped');
        // Another job has a lock of its own.
        assert.equal((await trigger(other!.app, 'cleanup-device-sessions')).json().status, 'succeeded');
        await client.query('SELECT pg_advisory_unlock($1::int, hashtext($2))', [JOB_LOCK_NAMESPACE, 'cleanup-expired-tokens']);
        assert.equal((await trigger(other!.app, 'cleanup-expired-tokens')).json().status, 'succeeded');
      } finally {
        await client.end();
      }
      assert.deepEqual((await runsOf('cleanup-expired-tokens')).map((r) => r.status).sort(), ['skipped', 'skipped', 'succeeded']);
    });
  });
});

// The same cron firing on two instances at the same instant: one run, whichever wins the lock, even
// when the winner is done before the other instance reaches the lock. Real clocks, so run records
// show when each run held the lock.
describe('simultaneous triggers', () => {
  const FAST = 'cleanup-expired-tokens';
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { SCHEDULED_JOB_SECRET: JOB_SECRET } });
  });
  after(async () => {
    await t.close();
  });

  async function assertOneRunPerPair(apps: [FastifyInstance, FastifyInstance], pairs: number) {
    for (let i = 0; i < pairs; i++) {
      const answers = await Promise.all(apps.map((app) => trigger(app, FAST)));
      const statuses = answers.map((answer) => answer.json().status).sort();
      assert.deepEqual(statuses, ['skipped', 'succeeded'], `pair ${i}: ${answers.map((a) => a.body).join(' ')}`);
    }
    const runs = await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.job, FAST));
    const ran = runs.filter((run) => run.status === 'succeeded').sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    assert.equal(ran.length, pairs);
    assert.equal(runs.filter((run) => run.status === 'skipped').length, pairs);
    // Stamped under the lock: no run record starts before the previous one finished.
    for (let i = 1; i < ran.length; i++) assert.ok(ran[i]!.startedAt >= ran[i - 1]!.finishedAt!, `runs ${i - 1} and ${i} overlap`);
  }

  it('two triggers at the same instant in one instance run the job once (100 of 100 pairs)', async () => {
    await resetDatabase(t.database);
    await assertOneRunPerPair([t.app, t.app], 100);
  });

  it('two instances on one PostgreSQL triggered at the same instant run it once (100 of 100 pairs)', { skip: NO_POSTGRES }, async () => {
    await resetDatabase(t.database);
    // The second instance hears its database 15 ms late (a slower link, a busier pool): it reaches the
    // lock only after the first instance's quick run is over, as it did in the 3-in-100 double runs.
    const url = new URL((await testDatabaseUrl())!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    proxy.latency({ toClientMs: 15 });
    const database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 3 });
    const platform = await createPlatform(t.config, { database, cache: createMemoryCache(), logger: createLogger('silent'), defaultMetrics: false });
    const app = await buildApp(platform);
    await app.ready();
    after(() => proxy.close());
    try {
      await assertOneRunPerPair([t.app, app], 100);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
