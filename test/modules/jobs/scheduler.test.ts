// The in-process scheduler (SCHEDULER=internal): one timer per job that only calls the runner,
// started when the server listens and stopped (waiting for runs in progress) when it closes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
// Run records: GET /api/scheduled/health shows only each job's newest run, not how many ran or their stamps.
import { scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import { JOB_NAMES } from '../../../src/declarations.ts';
import { cronerTimers, triggerWindowSeconds, type TimerFactory } from '../../../src/modules/jobs/scheduler.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import type { BinanceFake } from '../../fakes/binance.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { inTimeZone } from '../../helpers/time-zone.ts';
import { waitFor } from '../market/market-fixtures.ts';
import { JOB_SECRET, jobsAppPerFile, jobsModuleFor, maturedIntel, NOW, trigger } from './jobs-fixtures.ts';

/** Timers that fire only when the test says so. */
function manualTimers() {
  const timers = new Map<string, { fire: () => void; stopped: boolean }>();
  const factory: TimerFactory = (cron, fire) => {
    const timer = { fire, stopped: false };
    timers.set(cron, timer);
    return { stop: () => void (timer.stopped = true), nextRun: () => new Date('2030-01-01T00:00:00Z') };
  };
  return { factory, timers };
}

describe('in-process scheduler', () => {
  let binance: BinanceFake;
  let t: TestApp;
  jobsAppPerFile((app) => ({ t, binance } = app), { SCHEDULER: 'internal', MARKET_LIVE_STREAM: 'false' });

  it('refuses an unknown job in SCHEDULER_CRONS even from a config read without the job names', () => {
    const base = { JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') };
    const config = loadConfig({ ...base, SCHEDULER_CRONS: '{"cleanup-everything": "0 * * * *"}' });
    assert.deepEqual(config.jobs.crons, { 'cleanup-everything': '0 * * * *' });
    assert.throws(
      () => jobsModuleFor({ ...t.platform, config }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          error.problems[0]!,
          /^SCHEDULER_CRONS: "cleanup-everything" is not a job \(jobs: settle-issue-intents, rotate-api-keys, .*sync-accounts, prune-signal-alerts, settle-signal-alerts, prune-stream-events, reconcile-orders\)$/,
        );
        return true;
      },
    );
  });

  it(
    'creates one timer per job with its documented cron; a tick runs the job through ' +
      'the runner, recorded as scheduler',
    async () => {
      const { factory, timers } = manualTimers();
      const jobs = jobsModuleFor(t.platform, factory);
      jobs.start();
      assert.deepEqual([...timers.keys()].sort(), [
        '*/10 * * * *',
        '*/15 * * * *',
        '*/30 * * * * *',
        '0 3 * * *',
        '0 5 * * *',
        '15 * * * *',
        '2-59/5 * * * *',
        '30 4 * * *',
        '45 4 * * *',
        '7-59/10 * * * *',
      ]);
      jobs.start(); // a second start changes nothing
      assert.equal(timers.size, 10);

      timers.get('45 4 * * *')!.fire();
      await waitFor(
        async () =>
          (await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.status, 'succeeded')))
            .length === 1,
      );
      const [run] = await t.database.db.select().from(scheduledJobRuns);
      assert.equal(run!.job, 'cleanup-expired-tokens');
      assert.equal(run!.trigger, 'scheduler');
      assert.deepEqual(run!.result, { refresh_tokens: 0, password_reset_tokens: 0 });
      assert.deepEqual(
        (await jobs.lastRuns()).map((r) => [r.job, r.status, r.trigger, r.error]),
        [['cleanup-expired-tokens', 'succeeded', 'scheduler', null]],
      );
      await jobs.stop();
      assert.ok([...timers.values()].every((timer) => timer.stopped));
    },
  );

  it('waits on stop for a run in progress, so it finishes before the database closes', async () => {
    await maturedIntel(t, 'DOTUSDT', 'down');
    binance.delay(700, { times: 2, pathPrefix: '/api/v3/klines' });
    const { factory, timers } = manualTimers();
    const jobs = jobsModuleFor(t.platform, factory);
    jobs.start();
    const klines = binance.countRequests('/api/v3/klines');
    timers.get('*/15 * * * *')!.fire();
    await waitFor(() => binance.countRequests('/api/v3/klines') > klines);
    await jobs.stop();
    const [run] = await t.database.db
      .select()
      .from(scheduledJobRuns)
      .where(eq(scheduledJobRuns.job, 'strategy-autopilot/evaluate'));
    assert.equal(run!.status, 'succeeded');
    assert.equal((run!.result as { intel: { scored: number } }).intel.scored, 1);
  });

  describe('shutdown with a run an HTTP trigger started', () => {
    /** An app of its own whose close is the shutdown; one matured intel event whose candles the fake holds back. */
    async function slowRun(env: Record<string, string>, symbol: string) {
      const app = await buildTestApp({
        keepData: true,
        clock: fixedClock(NOW),
        env: {
          SCHEDULED_JOB_SECRET: JOB_SECRET,
          BINANCE_API_URL: binance.url,
          JOB_TRIGGER_WINDOW_SECONDS: '0',
          ...env,
        },
      });
      await maturedIntel(app, symbol);
      binance.delay(1_500, { times: 2, pathPrefix: '/api/v3/klines' });
      const started = await trigger(app.app, 'strategy-autopilot/evaluate');
      assert.equal(started.statusCode, 202, started.body);
      const row = async () =>
        (
          await app.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, started.json().run_id))
        )[0]!;
      assert.equal((await row()).status, 'running');
      return { app, row };
    }

    it('waits for the run before the database closes, so its outcome is recorded', async () => {
      const { app, row } = await slowRun({}, 'XRPUSDT');
      await app.close();
      const run = await row();
      assert.equal(run.status, 'succeeded');
      assert.equal((run.result as { intel: { scored: number } }).intel.scored, 1);
    });

    it('records a run still going at the shutdown bound as failed (interrupted), and it stays so', async () => {
      // SHUTDOWN_TIMEOUT_MS at its least leaves no time to wait after the drain second.
      const { app, row } = await slowRun({ SHUTDOWN_TIMEOUT_MS: '1000' }, 'TRXUSDT');
      await app.close();
      const run = await row();
      assert.equal(run.status, 'failed');
      assert.equal(run.error, 'interrupted: the service shut down before the run ended');
      assert.ok(run.finishedAt);
      // The job's own end, later, does not overwrite it.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      assert.equal((await row()).status, 'failed');
    });
  });

  it('does not start with SCHEDULER=off', async () => {
    const off = await buildTestApp({ keepData: true, env: { SCHEDULED_JOB_SECRET: JOB_SECRET, SCHEDULER: 'off' } });
    try {
      const { factory, timers } = manualTimers();
      const jobs = jobsModuleFor(off.platform, factory);
      jobs.start();
      assert.equal(timers.size, 0);
      await jobs.stop();
    } finally {
      await off.close();
    }
  });

  it(
    'gives each job a trigger window of 30 s, or half its cron period when shorter, ' +
      'and never more than the period',
    () => {
      assert.equal(triggerWindowSeconds('*/10 * * * *', undefined), 30);
      assert.equal(triggerWindowSeconds('* * * * *', undefined), 30);
      assert.equal(triggerWindowSeconds('*/20 * * * * *', undefined), 10);
      assert.equal(triggerWindowSeconds('45 4 * * *', 600), 600);
      assert.equal(triggerWindowSeconds('*/5 * * * *', 3_600), 300);
      assert.equal(triggerWindowSeconds('0 3,4 * * *', 7_200), 3_600, 'the shortest gap of an irregular schedule');
      assert.equal(triggerWindowSeconds('45 4 * * *', 0), 0);
      const base = { JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') };
      assert.equal(loadConfig(base).jobs.triggerWindowSeconds, undefined);
      assert.equal(loadConfig({ ...base, JOB_TRIGGER_WINDOW_SECONDS: '45' }).jobs.triggerWindowSeconds, 45);
      assert.throws(
        () => loadConfig({ ...base, JOB_TRIGGER_WINDOW_SECONDS: '1.5' }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.includes('JOB_TRIGGER_WINDOW_SECONDS must be an integer from 0 to 86400 (got "1.5")'),
      );
    },
  );

  it('uses croner in UTC for the real timers, whatever the local time zone', () => {
    let fired = 0;
    // A zone off UTC, with daylight saving: a timer read in local time would fire at 4:45 there.
    const timer = inTimeZone('America/New_York', () => {
      const timer = cronerTimers('45 4 * * *', () => void (fired += 1));
      try {
        assert.notEqual(new Date('2030-01-01T04:45:00Z').getHours(), 4, 'the local zone is not UTC');
        const next = timer.nextRun()!;
        assert.equal(next.getUTCHours(), 4);
        assert.equal(next.getUTCMinutes(), 45);
        assert.ok(next.getTime() > Date.now() && next.getTime() <= Date.now() + 86_400_000);
      } finally {
        timer.stop();
      }
      return timer;
    });
    assert.equal(fired, 0);
    assert.equal(timer.nextRun(), null);
  });

  it('SCHEDULER_CRONS replaces the cron of the jobs it names; health shows the schedule in force', async () => {
    const crons = JSON.stringify({
      'cleanup-expired-tokens': '*/5 * * * *',
      'strategy-autopilot/evaluate': ' 0 */2 * * * ',
    });
    const custom = await buildTestApp({
      keepData: true,
      clock: fixedClock(NOW),
      env: { SCHEDULED_JOB_SECRET: JOB_SECRET, SCHEDULER: 'internal', SCHEDULER_CRONS: crons },
    });
    try {
      const { factory, timers } = manualTimers();
      const jobs = jobsModuleFor(custom.platform, factory);
      jobs.start();
      assert.deepEqual([...timers.keys()].sort(), [
        '*/10 * * * *',
        '*/30 * * * * *',
        '*/5 * * * *',
        '0 */2 * * *',
        '0 3 * * *',
        '0 5 * * *',
        '15 * * * *',
        '2-59/5 * * * *',
        '30 4 * * *',
        '7-59/10 * * * *',
      ]);
      const before = (
        await custom.database.db
          .select()
          .from(scheduledJobRuns)
          .where(eq(scheduledJobRuns.job, 'cleanup-expired-tokens'))
      ).length;
      timers.get('*/5 * * * *')!.fire();
      await waitFor(
        async () =>
          (
            await custom.database.db
              .select()
              .from(scheduledJobRuns)
              .where(eq(scheduledJobRuns.job, 'cleanup-expired-tokens'))
          ).length > before,
      );
      await jobs.stop();
      const health = (await custom.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
      const cronOf = Object.fromEntries(health.jobs.map((job: { name: string; cron: string }) => [job.name, job.cron]));
      assert.equal(cronOf['cleanup-expired-tokens'], '*/5 * * * *');
      assert.equal(cronOf['strategy-autopilot/evaluate'], '0 */2 * * *');
      assert.equal(cronOf['rotate-api-keys'], '0 3 * * *');
    } finally {
      await custom.close();
    }
  });

  it('an unknown job or an invalid cron in SCHEDULER_CRONS stops the start, one line per problem', () => {
    const base = {
      JWT_SECRET: 'x'.repeat(32),
      ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
      SCHEDULER: 'internal',
    };
    const problems = (crons: string) => {
      try {
        loadConfig({ ...base, SCHEDULER_CRONS: crons }, { jobNames: JOB_NAMES });
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    const found = problems(
      JSON.stringify({
        'rotate-api-keys': '61 * * * *',
        'cleanup-everything': '0 * * * *',
        'cleanup-grace-periods': '0 0 30 2 *',
        'cleanup-device-sessions': 5,
      }),
    );
    assert.equal(found.length, 4);
    assert.match(
      found[0]!,
      /^SCHEDULER_CRONS: "rotate-api-keys" has an invalid cron expression \("61 \* \* \* \*"\): .*minute/,
    );
    assert.match(
      found[1]!,
      /^SCHEDULER_CRONS: "cleanup-everything" is not a job \(jobs: settle-issue-intents, rotate-api-keys, .*strategy-autopilot\/evaluate, sync-accounts, prune-signal-alerts, settle-signal-alerts, prune-stream-events, reconcile-orders\)$/,
    );
    assert.equal(
      found[2],
      'SCHEDULER_CRONS: "cleanup-grace-periods" has a cron expression that never fires ("0 0 30 2 *")',
    );
    assert.equal(found[3], 'SCHEDULER_CRONS: "cleanup-device-sessions" must map to a cron expression (a string)');
    assert.deepEqual(problems('["0 * * * *"]'), [
      'SCHEDULER_CRONS must be a JSON object mapping job names to cron expressions',
    ]);
    assert.deepEqual(problems('{not json'), [
      'SCHEDULER_CRONS must be a JSON object mapping job names to cron expressions',
    ]);
    assert.deepEqual(problems('{"rotate-api-keys": "0 5 * * 1"}'), []);
    assert.deepEqual(loadConfig({ ...base, SCHEDULER_CRONS: '{"rotate-api-keys": "0 5 * * 1"}' }).jobs.crons, {
      'rotate-api-keys': '0 5 * * 1',
    });
  });

  it('runs while the server listens: health shows it with the next run of each job', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    // A next run is after the moment it was asked for, not after the answer is read: a job due every
    // minute may fall due in between.
    const asked = Date.now();
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    assert.equal(health.scheduler, 'internal');
    assert.equal(health.scheduler_running, true);
    for (const job of health.jobs) assert.ok(Date.parse(job.next_run) >= asked, job.name);
  });
});
