// The HTTP triggers of the scheduled jobs: the secret header, the public health answer, and how a
// failed job answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
// Run records: GET /api/scheduled/health shows only each job's newest run, not how many ran or their stamps.
import { scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { JOB_SECRET, NOW, trigger } from './jobs-fixtures.ts';

const JOBS = ['rotate-api-keys', 'cleanup-grace-periods', 'cleanup-device-sessions', 'cleanup-expired-tokens', 'strategy-autopilot/evaluate', 'sync-accounts'];

describe('scheduled job triggers', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: fixedClock(NOW), env: { SCHEDULED_JOB_SECRET: JOB_SECRET } });
  });
  after(() => t.close());

  it('answers 422 on ["header","x-scheduled-job-secret"] when the header is missing, and runs nothing', async () => {
    for (const job of JOBS) {
      const response = await trigger(t.app, job, null);
      assert.equal(response.statusCode, 422, job);
      const [issue] = response.json().detail;
      assert.deepEqual({ type: issue.type, loc: issue.loc, msg: issue.msg }, { type: 'missing', loc: ['header', 'x-scheduled-job-secret'], msg: 'Field required' });
    }
    assert.equal((await t.database.db.select().from(scheduledJobRuns)).length, 0);
  });

  it('answers 401 for a wrong secret, of any length, and runs nothing', async () => {
    for (const secret of ['wrong', `${JOB_SECRET}x`, JOB_SECRET.slice(0, -1), JOB_SECRET.toUpperCase()]) {
      const response = await trigger(t.app, 'cleanup-expired-tokens', secret);
      assert.equal(response.statusCode, 401, secret);
      assert.deepEqual(response.json(), { detail: 'Invalid scheduled job secret' });
    }
    assert.equal((await t.database.db.select().from(scheduledJobRuns)).length, 0);
    assert.ok(!t.logText().includes(JOB_SECRET), 'the secret is never logged');
  });

  it('runs the job with the right secret and records the run', async () => {
    const response = await trigger(t.app, 'cleanup-expired-tokens');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.job, 'cleanup-expired-tokens');
    assert.equal(body.status, 'succeeded');
    assert.equal(body.trigger, 'http');
    assert.equal(body.started_at, NOW.toISOString());
    assert.deepEqual(body.result, { refresh_tokens: 0, password_reset_tokens: 0 });
    const [run] = await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, body.run_id));
    assert.equal(run!.status, 'succeeded');
    assert.deepEqual(run!.result, body.result);
    assert.equal(run!.finishedAt!.toISOString(), NOW.toISOString());
  });

  it('shows the configuration and each job with its cron and newest run on the public health route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/scheduled/health' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.scheduler, 'off');
    assert.equal(body.scheduler_running, false);
    assert.equal(body.secret_configured, true);
    assert.deepEqual(body.jobs.map((j: { name: string }) => j.name), JOBS);
    assert.ok(!response.body.includes(JOB_SECRET));
    const tokens = body.jobs.find((j: { name: string }) => j.name === 'cleanup-expired-tokens');
    assert.equal(tokens.path, '/api/scheduled/cleanup-expired-tokens');
    assert.equal(tokens.cron, '45 4 * * *');
    assert.equal(tokens.next_run, null);
    assert.equal(tokens.last_run.status, 'succeeded');
    assert.equal(tokens.last_run.trigger, 'http');
    assert.equal(body.jobs.find((j: { name: string }) => j.name === 'rotate-api-keys').last_run, null);
  });

  it('records a job that fails and answers 503 with the run id and a safe message, never a 500 or a stack', async () => {
    // A real failure: the table the job works on is gone for a moment.
    await t.database.db.execute(sql`ALTER TABLE strategies RENAME TO strategies_away`);
    let response;
    try {
      response = await trigger(t.app, 'strategy-autopilot/evaluate');
    } finally {
      await t.database.db.execute(sql`ALTER TABLE strategies_away RENAME TO strategies`);
    }
    assert.equal(response.statusCode, 503, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['detail', 'run_id']);
    assert.equal(body.detail, 'strategy-autopilot/evaluate failed: unexpected error; the cause is in the service log');
    assert.doesNotMatch(response.body, /strategies|relation|at .*\.ts|select/i);
    const [run] = await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, body.run_id));
    assert.equal(run!.status, 'failed');
    assert.equal(run!.error, 'unexpected error; the cause is in the service log');
    assert.ok(run!.finishedAt);
    // The cause is in the log for the operator.
    assert.ok(t.logLines().some((line) => line.msg === 'scheduled job failed' && line.job === 'strategy-autopilot/evaluate'));
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    assert.equal(health.jobs.find((j: { name: string }) => j.name === 'strategy-autopilot/evaluate').last_run.status, 'failed');
  });
});

describe('scheduled jobs without SCHEDULED_JOB_SECRET', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock: fixedClock(NOW), env: { SCHEDULED_JOB_SECRET: undefined } });
  });
  after(() => t.close());

  it('answers 503 to every trigger, whatever the header says, and says so on health', async () => {
    for (const job of JOBS) {
      const response = await trigger(t.app, job, 'anything');
      assert.equal(response.statusCode, 503, job);
      assert.deepEqual(response.json(), { detail: 'Scheduled jobs are not configured: SCHEDULED_JOB_SECRET is not set' });
    }
    assert.equal((await t.database.db.select().from(scheduledJobRuns)).length, 0);
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    assert.equal(health.secret_configured, false);
  });

  it('still reports a missing header as 422 first', async () => {
    assert.equal((await trigger(t.app, 'rotate-api-keys', null)).statusCode, 422);
  });
});
