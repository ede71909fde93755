// A run whose end was never recorded (its process was killed, or the database was away when it ended)
// does not stay `running` for ever (decision 985): the job's next run, and the service's start, record it
// failed as interrupted. The real fault: PostgreSQL cut through a loopback TCP proxy while a run ends.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
// A process killed mid-run leaves exactly this row behind; no operation can make one on the embedded database.
import { scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { buildTestApp, testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';
import {
  ago,
  HOUR,
  JOB_SECRET,
  jobsEnv,
  jobsModuleFor,
  maturedIntel,
  NOW,
  readRun,
  runJob,
  trigger,
} from './jobs-fixtures.ts';

const QUICK = 'cleanup-expired-tokens';
const SLOW = 'strategy-autopilot/evaluate';
const NO_POSTGRES = withoutPostgres('the database is cut through a TCP proxy in front of a real server');

async function readStatus(t: TestApp, runId: string) {
  const response = await readRun(t.app, runId);
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { status: string; error: string | null; finished_at: string | null };
}

describe('runs left running by a process that is gone', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      clock: fixedClock(NOW),
      env: { SCHEDULED_JOB_SECRET: JOB_SECRET, JOB_TRIGGER_WINDOW_SECONDS: '0' },
    });
  });
  after(() => t.close());

  const leftRunning = async () => {
    const [row] = await t.database.db
      .insert(scheduledJobRuns)
      .values({ job: QUICK, trigger: 'scheduler', startedAt: ago(HOUR), status: 'running' })
      .returning();
    return row!.id;
  };

  it("the job's next run records them failed, interrupted", async () => {
    const lost = await leftRunning();
    const next = await runJob(t.app, QUICK);
    assert.equal(next.status, 'succeeded');
    const run = await readStatus(t, lost);
    assert.equal(run.status, 'failed');
    assert.match(run.error ?? '', /^interrupted: /);
    assert.notEqual(run.finished_at, null);
  });

  it("the service's start records them failed, interrupted", async () => {
    const lost = await leftRunning();
    await jobsModuleFor(t.platform).hooks.ready();
    const run = await readStatus(t, lost);
    assert.equal(run.status, 'failed');
    assert.match(run.error ?? '', /^interrupted: /);
  });
});

describe('a run that ends while the database is cut', { skip: NO_POSTGRES }, () => {
  let proxy: TcpProxy;
  let database: Database;
  let binance: BinanceFake;
  let t: TestApp;
  before(async () => {
    binance = await startBinanceFake();
    const url = new URL((await testDatabaseUrl())!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 4, connectTimeoutMs: 2_000 });
    t = await buildTestApp({ database, clock: fixedClock(NOW), env: jobsEnv(binance) });
  });
  after(async () => {
    await proxy?.mode('pass');
    await t?.close();
    await proxy?.close();
    await binance?.close();
  });

  it('is recorded failed, interrupted, by the next run once the database is back', async () => {
    await maturedIntel(t, 'LOSTUSDT');
    const held = binance.hold({ times: 2, pathPrefix: '/api/v3/klines' });
    const started = await trigger(t.app, SLOW);
    assert.equal(started.statusCode, 202, started.body);
    const runId = started.json().run_id as string;

    // The run is recorded `running`; the database goes away before it ends, so its end cannot be written.
    const refusing = proxy.mode('refuse');
    proxy.reset();
    await refusing;
    held.release();
    await sleep(1_500);
    await proxy.mode('pass');
    assert.equal((await readStatus(t, runId)).status, 'running', 'the end was written despite the cut');

    // The next run (the cut run's lock went with its connection) records it.
    let next = await trigger(t.app, SLOW);
    for (let i = 0; next.statusCode !== 202 && i < 100; i++) {
      await sleep(50);
      next = await trigger(t.app, SLOW);
    }
    assert.equal(next.statusCode, 202, next.body);
    const run = await readStatus(t, runId);
    assert.equal(run.status, 'failed');
    assert.match(run.error ?? '', /^interrupted: /);
  });
});
