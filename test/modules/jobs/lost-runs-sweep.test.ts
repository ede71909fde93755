// The sweep of lost runs (decision 1000): one statement on PostgreSQL (two on the embedded database),
// whatever the number of jobs, that records failed only the runs of jobs whose lock is free; and a
// listening instance sweeps once a period, so a run whose instance died does not wait for the next start.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { JOB_LOCK_NAMESPACE } from '../../../src/modules/jobs/job-lock.ts';
// A process killed mid-run leaves exactly this row behind; no operation can make one on the embedded database.
import { scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import type { BinanceFake } from '../../fakes/binance.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { describe, it } from '../../helpers/suite.ts';
import { testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';
import { ago, awaitRun, HOUR, jobsAppPerFile, jobsModuleFor, maturedIntel, readRun, trigger } from './jobs-fixtures.ts';

const TOKENS = 'cleanup-expired-tokens';
const SESSIONS = 'cleanup-device-sessions';
const SLOW = 'strategy-autopilot/evaluate';
const NO_POSTGRES = withoutPostgres('another instance holds a job lock on a connection of its own');

describe('the sweep of lost runs', () => {
  let binance: BinanceFake;
  let t: TestApp;
  jobsAppPerFile((app) => ({ t, binance } = app));

  const leftRunning = async (job: string) => {
    const [row] = await t.database.db
      .insert(scheduledJobRuns)
      .values({ job, trigger: 'scheduler', startedAt: ago(HOUR), status: 'running' })
      .returning();
    return row!.id;
  };
  const statusOf = async (runId: string) => {
    const response = await readRun(t.app, runId);
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { status: string; error: string | null }).status;
  };
  /** Another instance: a connection of its own holding `job`'s lock, as a run there does. */
  const holdLockElsewhere = async (job: string) => {
    const client = new pg.Client({ connectionString: (await testDatabaseUrl())! });
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1::int, hashtext($2))', [JOB_LOCK_NAMESPACE, job]);
    return client;
  };

  it('is one statement on PostgreSQL and two on the embedded database, whatever the number of jobs', async () => {
    const lost = [await leftRunning(TOKENS), await leftRunning(TOKENS), await leftRunning(SESSIONS)];
    const jobs = jobsModuleFor(t.platform);
    const recorded = recordStatements(t.database);
    try {
      await jobs.hooks.ready();
    } finally {
      recorded.stop();
    }
    const sweep = recorded.texts.filter((text) => text.includes('scheduled_job_runs'));
    assert.equal(sweep.length, t.database.kind === 'postgres' ? 1 : 2, sweep.join('\n---\n'));
    // No lock is taken on its own: on PostgreSQL the one statement takes the locks it needs.
    assert.equal(recorded.texts.filter((text) => /advisory/.test(text)).length, t.database.kind === 'postgres' ? 1 : 0);
    for (const runId of lost) assert.equal(await statusOf(runId), 'failed');
  });

  it('leaves running a run whose job another instance holds the lock of, and records the lost ones', {
    skip: NO_POSTGRES,
  }, async () => {
    const held = await leftRunning(TOKENS);
    const lost = await leftRunning(SESSIONS);
    const other = await holdLockElsewhere(TOKENS);
    try {
      await jobsModuleFor(t.platform).hooks.ready();
      assert.equal(await statusOf(held), 'running');
      assert.equal(await statusOf(lost), 'failed');
    } finally {
      await other.end();
    }
    // The other instance is gone, and its lock with its connection: the next sweep records its run.
    await jobsModuleFor(t.platform).hooks.ready();
    assert.equal(await statusOf(held), 'failed');
    // The sweep holds no lock once it has answered: the job runs.
    const next = await trigger(t.app, TOKENS);
    assert.equal(next.statusCode, 202, next.body);
    assert.equal((await awaitRun(t.app, next.json().run_id)).status, 'succeeded');
  });

  it('leaves running a run in progress in this process', async () => {
    await maturedIntel(t, 'SWEPTUSDT');
    const market = binance.hold({ times: 2, pathPrefix: '/api/v3/klines' });
    let released = false;
    try {
      // The module that runs it sweeps: one jobs module a process, as the app has.
      const jobs = jobsModuleFor(t.platform);
      const started = await jobs.startRun(SLOW, 'http');
      assert.equal(started.outcome.status, 'running');
      const runId = started.outcome.runId!;
      await jobs.hooks.ready();
      assert.equal(await statusOf(runId), 'running');
      market.release();
      released = true;
      assert.equal((await awaitRun(t.app, runId)).status, 'succeeded');
    } finally {
      if (!released) market.release();
    }
  });

  it('goes on once a period while the instance listens, not only at its start', async () => {
    const jobs = jobsModuleFor(t.platform, undefined, 50);
    jobs.start();
    const other = t.database.kind === 'postgres' ? await holdLockElsewhere(TOKENS) : undefined;
    try {
      // Both left after the start-up sweep: a run whose instance died while this one was running.
      const held = other ? await leftRunning(TOKENS) : undefined;
      const lost = await leftRunning(SESSIONS);
      for (let i = 0; (await statusOf(lost)) === 'running' && i < 200; i++) await sleep(25);
      assert.equal(await statusOf(lost), 'failed');
      if (held) {
        await sleep(300); // several periods
        assert.equal(await statusOf(held), 'running');
      }
    } finally {
      await other?.end();
      await jobs.stop();
    }
    // Stopped: no sweep any more.
    const later = await leftRunning(SESSIONS);
    await sleep(300);
    assert.equal(await statusOf(later), 'running');
  });
});
