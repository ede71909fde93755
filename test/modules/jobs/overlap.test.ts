// Two overlapping runs of one job never both run: in one process (any database), and across two
// instances sharing PostgreSQL (two pools, two apps), where the advisory lock decides. And a job runs
// once per trigger window: two triggers of it on two instances, 0 to 200 ms apart, run it once.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../../src/app.ts';
import { JOB_LOCK_NAMESPACE } from '../../../src/modules/jobs/job-lock.ts';
// Run records: GET /api/scheduled/health shows only each job's newest run, not how many ran or their stamps.
import { scheduledJobClaims, scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import { createPlatform } from '../../../src/platform/platform.ts';
import type { BinanceFake } from '../../fakes/binance.ts';
import { startTcpProxy } from '../../fakes/tcp-proxy.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { buildTestApp, resetDatabase, testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../market/market-fixtures.ts';
import { awaitRun, JOB_SECRET, jobsAppPerFile, maturedIntel, NOW, readRun, trigger } from './jobs-fixtures.ts';
import type { JobName } from '../../../src/modules/jobs/jobs.domain.ts';
import { withoutPostgres } from '../../helpers/services.ts';

const JOB = 'strategy-autopilot/evaluate';
const NO_POSTGRES = withoutPostgres('overlap across instances needs PostgreSQL and two real connections');

describe('overlapping runs', () => {
  let binance: BinanceFake;
  let t: TestApp;
  // No trigger window: what keeps these runs apart is the lock alone.
  jobsAppPerFile((app) => ({ t, binance } = app));

  /**
   * One matured intel event whose candle requests the fake holds back, so a run lasts a while. Each
   * test uses its own symbol: candles already fetched would come from the market cache.
   */
  async function slowRunAhead(symbol: string): Promise<{ release(): void }> {
    await maturedIntel(t, symbol);
    return binance.hold({ times: 2, pathPrefix: '/api/v3/klines' });
  }

  async function runsOf(job: JobName) {
    return t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.job, job));
  }

  it(
    'answers a trigger at once with 202 while its run goes ' + 'on; the run read shows it running, then its outcome',
    async () => {
      const market = await slowRunAhead('ADAUSDT');
      // The market's answers are held until released: the trigger answered before the run could end.
      const response = await trigger(t.app, JOB);
      assert.equal(response.statusCode, 202, response.body);
      assert.equal(response.json().status, 'running');
      const runId = response.json().run_id;
      const reading = (await readRun(t.app, runId)).json();
      assert.deepEqual([reading.status, reading.finished_at, reading.result], ['running', null, undefined]);
      market.release();
      const run = await awaitRun(t.app, runId);
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.equal(run.result.intel.scored, 1);
      assert.deepEqual(run.units, { total: 1, succeeded: 1, failed: 0 });
    },
  );

  it('skips the second of two overlapping runs in one instance, answering 200 skipped and recording it', async () => {
    const market = await slowRunAhead('LTCUSDT');
    const klines = binance.countRequests('/api/v3/klines');
    const first = await trigger(t.app, JOB);
    assert.equal(first.statusCode, 202, first.body);
    await waitFor(() => binance.countRequests('/api/v3/klines') > klines, 5_000, 'the first run to reach the market');
    const second = await trigger(t.app, JOB);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.json().status, 'skipped');
    assert.equal(second.json().reason, 'another run of this job is in progress');
    assert.equal(second.json().covered_by, first.json().run_id);
    assert.equal(second.json().result, undefined);
    market.release();
    const done = await awaitRun(t.app, first.json().run_id);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.result.intel.scored, 1);
    const runs = await runsOf(JOB);
    assert.deepEqual(runs.map((r) => r.status).sort(), ['skipped', 'succeeded']);
    assert.deepEqual(runs.find((r) => r.status === 'skipped')!.result, {
      reason: 'another run of this job is in progress',
      covered_by: first.json().run_id,
    });
    // Other jobs are not held up by it, and once it is over the job runs again.
    const again = await trigger(t.app, JOB);
    assert.equal(again.statusCode, 202, again.body);
    assert.equal((await awaitRun(t.app, again.json().run_id)).status, 'succeeded');
  });

  describe('two instances on one PostgreSQL database', () => {
    let other: { app: FastifyInstance; database: Database } | undefined;
    before(async () => {
      if (NO_POSTGRES) return;
      // A second instance: its own pool, its own platform and app, the same database.
      const database = await openDatabase({ url: (await testDatabaseUrl())!, poolSize: 3 });
      const platform = await createPlatform(t.config, {
        database,
        cache: createMemoryCache(),
        clock: fixedClock(NOW),
        logger: createLogger('silent'),
        defaultMetrics: false,
      });
      const app = await buildApp(platform);
      await app.ready();
      other = { app, database };
    });
    after(async () => {
      await other?.app.close();
      await other?.database.close();
    });

    it('lets only one of two overlapping runs on two instances run; the other answers skipped', {
      skip: NO_POSTGRES,
    }, async () => {
      const market = await slowRunAhead('LINKUSDT');
      const klines = binance.countRequests('/api/v3/klines');
      const first = await trigger(t.app, JOB);
      assert.equal(first.statusCode, 202, first.body);
      await waitFor(() => binance.countRequests('/api/v3/klines') > klines, 5_000, 'the first run to reach the market');
      const second = await trigger(other!.app, JOB);
      assert.equal(second.statusCode, 200, second.body);
      assert.equal(second.json().status, 'skipped');
      market.release();
      // The other instance reads the run the first one started.
      assert.equal((await awaitRun(other!.app, first.json().run_id)).status, 'succeeded');
      assert.deepEqual((await runsOf(JOB)).map((r) => r.status).sort(), ['skipped', 'succeeded']);
    });

    it('skips while another connection holds the job lock, and runs once it is released', {
      skip: NO_POSTGRES,
    }, async () => {
      const client = new pg.Client({ connectionString: (await testDatabaseUrl())! });
      await client.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1::int, hashtext($2))', [
          JOB_LOCK_NAMESPACE,
          'cleanup-expired-tokens',
        ]);
        for (const app of [t.app, other!.app])
          assert.equal((await trigger(app, 'cleanup-expired-tokens')).json().status, 'skipped');
        // Another job has a lock of its own.
        const sessions = await trigger(other!.app, 'cleanup-device-sessions');
        assert.equal(sessions.statusCode, 202, sessions.body);
        assert.equal((await awaitRun(other!.app, sessions.json().run_id)).status, 'succeeded');
        await client.query('SELECT pg_advisory_unlock($1::int, hashtext($2))', [
          JOB_LOCK_NAMESPACE,
          'cleanup-expired-tokens',
        ]);
        const tokens = await trigger(other!.app, 'cleanup-expired-tokens');
        assert.equal(tokens.statusCode, 202, tokens.body);
        assert.equal((await awaitRun(other!.app, tokens.json().run_id)).status, 'succeeded');
      } finally {
        await client.end();
      }
      assert.deepEqual((await runsOf('cleanup-expired-tokens')).map((r) => r.status).sort(), [
        'skipped',
        'skipped',
        'succeeded',
      ]);
    });
  });
});

// The same cron firing on two instances, 0 to 200 ms apart: one run per trigger window, whichever
// instance claims it, even when the first run is over before the other trigger arrives and whatever
// the instances' clocks say (the window is the database's). Real clocks; the second instance's runs
// a second ahead. Between pairs the window is moved on: the claim is set an hour back.
describe('one run per trigger window', () => {
  const FAST = 'cleanup-expired-tokens';
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { SCHEDULED_JOB_SECRET: JOB_SECRET } });
  });
  after(async () => {
    await t.close();
  });

  const windowPasses = () =>
    t.database.db
      .update(scheduledJobClaims)
      .set({ claimedAt: sql`${scheduledJobClaims.claimedAt} - interval '1 hour'` });

  async function assertOneRunPerPair(apps: [FastifyInstance, FastifyInstance], pairs: number) {
    for (let i = 0; i < pairs; i++) {
      // Gaps spread over 0 to 200 ms; which instance fires first alternates.
      const gapMs = Math.round((i * 200) / pairs);
      const [early, late] = i % 2 === 0 ? apps : [apps[1], apps[0]];
      const answers = await Promise.all([trigger(early, FAST), sleep(gapMs).then(() => trigger(late, FAST))]);
      const where = `pair ${i} (${gapMs} ms): ${answers.map((a) => a.body).join(' ')}`;
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 202], where);
      const ran = answers.find((a) => a.statusCode === 202)!.json();
      const skipped = answers.find((a) => a.statusCode === 200)!.json();
      assert.equal(skipped.status, 'skipped', where);
      assert.equal(skipped.covered_by, ran.run_id, where);
      assert.equal((await awaitRun(early, ran.run_id)).status, 'succeeded', where);
      await windowPasses();
    }
    const runs = await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.job, FAST));
    assert.equal(runs.filter((run) => run.status === 'succeeded').length, pairs);
    assert.equal(runs.filter((run) => run.status === 'skipped').length, pairs);
  }

  it('100 of 100 pairs of triggers 0-200 ms apart in one instance run once', async () => {
    await resetDatabase(t.database);
    await assertOneRunPerPair([t.app, t.app], 100);
  });

  describe('two instances on one PostgreSQL database', { skip: NO_POSTGRES }, () => {
    it(
      '100 of 100 pairs at 0-200 ms gaps run once, the second instance 15 ms from its ' +
        'database and its clock 1 s ahead',
      async () => {
        await resetDatabase(t.database);
        // A slower link (a busier pool) for the second instance: it reaches the database after the
        // first instance's quick run is over, as it did in the double runs.
        const url = new URL((await testDatabaseUrl())!);
        const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
        proxy.latency({ toClientMs: 15 });
        const database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 3 });
        const ahead = { now: () => new Date(Date.now() + 1_000) };
        const platform = await createPlatform(t.config, {
          database,
          cache: createMemoryCache(),
          clock: ahead,
          logger: createLogger('silent'),
          defaultMetrics: false,
        });
        const app = await buildApp(platform);
        await app.ready();
        try {
          await assertOneRunPerPair([t.app, app], 100);
        } finally {
          await app.close();
          await database.close();
          await proxy.close();
        }
      },
    );
  });
});
