// The HTTP triggers of the scheduled jobs: the secret header, the answer at once with the run id (the run
// goes on), the run read, the public health answer, how a failed job is recorded, the trigger window
// on one instance and the Idempotency-Key.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
// Run records: GET /api/scheduled/health shows only each job's newest run, not how many ran or their stamps.
import { scheduledJobClaims, scheduledJobRuns } from '../../../src/modules/jobs/jobs.tables.ts';
import { JOB_NAMES } from '../../../src/declarations.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, resetDatabase, type TestApp } from '../../helpers/test-app.ts';
import { awaitRun, JOB_SECRET, NOW, readRun, trigger } from './jobs-fixtures.ts';

const JOBS = JOB_NAMES;

describe('scheduled job triggers', () => {
  let t: TestApp;
  before(async () => {
    // No trigger window here: the window has tests of its own below.
    t = await buildTestApp({
      clock: fixedClock(NOW),
      env: { SCHEDULED_JOB_SECRET: JOB_SECRET, JOB_TRIGGER_WINDOW_SECONDS: '0' },
    });
  });
  after(() => t.close());

  it('answers 422 on ["header","x-scheduled-job-secret"] when the header is missing, and runs nothing', async () => {
    for (const job of JOBS) {
      const response = await trigger(t.app, job, null);
      assert.equal(response.statusCode, 422, job);
      const [issue] = response.json().detail;
      assert.deepEqual(
        { type: issue.type, loc: issue.loc, msg: issue.msg },
        { type: 'missing', loc: ['header', 'x-scheduled-job-secret'], msg: 'Field required' },
      );
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

  it(
    'starts the job with the right secret, answers 202 with the run id at once, and ' +
      'the run read tells the outcome',
    async () => {
      const response = await trigger(t.app, 'cleanup-expired-tokens');
      assert.equal(response.statusCode, 202, response.body);
      const body = response.json();
      assert.deepEqual(body, {
        job: 'cleanup-expired-tokens',
        status: 'running',
        run_id: body.run_id,
        trigger: 'http',
        started_at: NOW.toISOString(),
        finished_at: null,
        units: null,
        error: null,
      });
      const run = await awaitRun(t.app, body.run_id);
      assert.deepEqual(run, {
        job: 'cleanup-expired-tokens',
        status: 'succeeded',
        run_id: body.run_id,
        trigger: 'http',
        started_at: NOW.toISOString(),
        finished_at: NOW.toISOString(),
        units: null,
        error: null,
        result: { refresh_tokens: 0, password_reset_tokens: 0 },
      });
      const [row] = await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, body.run_id));
      assert.equal(row!.status, 'succeeded');
      assert.deepEqual(row!.result, run.result);
    },
  );

  it('reads a run only with the secret: 404 for an unknown run, 422 for an id that is not a UUID', async () => {
    const unknown = await readRun(t.app, randomUUID());
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { detail: 'Run not found' });
    const malformed = await readRun(t.app, 'not-a-uuid');
    assert.equal(malformed.statusCode, 422, malformed.body);
    assert.deepEqual(malformed.json().detail[0].loc, ['path', 'run_id']);
    const started = (await trigger(t.app, 'cleanup-device-sessions')).json();
    assert.equal((await readRun(t.app, started.run_id, 'wrong')).statusCode, 401);
    const missing = await t.app.inject({ method: 'GET', url: `/api/scheduled/runs/${started.run_id}` });
    assert.equal(missing.statusCode, 422);
    assert.equal((await awaitRun(t.app, started.run_id)).status, 'succeeded');
  });

  it('shows the configuration and each job with its cron and newest run on the public health route', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/scheduled/health' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.scheduler, 'off');
    assert.equal(body.scheduler_running, false);
    assert.equal(body.secret_configured, true);
    assert.deepEqual(
      body.jobs.map((j: { name: string }) => j.name),
      JOBS,
    );
    assert.ok(!response.body.includes(JOB_SECRET));
    const tokens = body.jobs.find((j: { name: string }) => j.name === 'cleanup-expired-tokens');
    assert.equal(tokens.path, '/api/scheduled/cleanup-expired-tokens');
    assert.equal(tokens.cron, '45 4 * * *');
    assert.equal(tokens.next_run, null);
    assert.equal(tokens.last_run.status, 'succeeded');
    assert.equal(tokens.last_run.trigger, 'http');
    assert.equal(body.jobs.find((j: { name: string }) => j.name === 'rotate-api-keys').last_run, null);
  });

  it('records a job that fails with a safe message the run read and health tell, never a 500 or a stack', async () => {
    // A real failure: the table the job works on is gone for a moment.
    await t.database.db.execute(sql`ALTER TABLE strategies RENAME TO strategies_away`);
    let response: Awaited<ReturnType<typeof trigger>>;
    let read: Awaited<ReturnType<typeof awaitRun>>;
    try {
      response = await trigger(t.app, 'strategy-autopilot/evaluate');
      assert.equal(response.statusCode, 202, response.body);
      read = await awaitRun(t.app, response.json().run_id);
    } finally {
      await t.database.db.execute(sql`ALTER TABLE strategies_away RENAME TO strategies`);
    }
    assert.equal(read.status, 'failed');
    assert.equal(read.error, 'unexpected error; the cause is in the service log');
    assert.ok(read.finished_at);
    assert.equal(read.result, undefined);
    assert.doesNotMatch(JSON.stringify(read), /strategies_away|relation|at .*\.ts|select/i);
    const [run] = await t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, read.run_id));
    assert.equal(run!.status, 'failed');
    assert.equal(run!.error, 'unexpected error; the cause is in the service log');
    assert.ok(run!.finishedAt);
    // The cause is in the log for the operator.
    assert.ok(
      t.logLines().some((line) => line.msg === 'scheduled job failed' && line.job === 'strategy-autopilot/evaluate'),
    );
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    assert.equal(
      health.jobs.find((j: { name: string }) => j.name === 'strategy-autopilot/evaluate').last_run.status,
      'failed',
    );
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
      assert.deepEqual(response.json(), {
        detail: 'Scheduled jobs are not configured: SCHEDULED_JOB_SECRET is not set',
      });
    }
    assert.equal((await t.database.db.select().from(scheduledJobRuns)).length, 0);
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    assert.equal(health.secret_configured, false);
  });

  it('still reports a missing header as 422 first', async () => {
    assert.equal((await trigger(t.app, 'rotate-api-keys', null)).statusCode, 422);
  });
});

// The trigger window on one instance (the cross-instance pairs are in overlap.test.ts), and the
// Idempotency-Key. The window is measured by the database's clock; tests move it by moving the claim.
describe('the trigger window and the Idempotency-Key', () => {
  const JOB = 'cleanup-expired-tokens';
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { SCHEDULED_JOB_SECRET: JOB_SECRET } });
  });
  beforeEach(() => resetDatabase(t.database));
  after(() => t.close());

  /** The window ends: the job's claim is moved an hour back, as if the hour had passed. */
  const windowPasses = () =>
    t.database.db
      .update(scheduledJobClaims)
      .set({ claimedAt: sql`${scheduledJobClaims.claimedAt} - interval '1 hour'` });
  const runsOf = () => t.database.db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.job, JOB));

  it(
    'answers a trigger within 30 s of a run as skipped, ' + 'naming the run that covered it, even after that run ended',
    async () => {
      const first = await trigger(t.app, JOB);
      assert.equal(first.statusCode, 202, first.body);
      const runId = first.json().run_id;
      assert.equal((await awaitRun(t.app, runId)).status, 'succeeded');
      const second = await trigger(t.app, JOB);
      assert.equal(second.statusCode, 200, second.body);
      const body = second.json();
      assert.equal(body.status, 'skipped');
      assert.equal(body.covered_by, runId);
      assert.equal(body.reason, `covered by run ${runId}, which started within this job's 30 s trigger window`);
      assert.notEqual(body.run_id, runId);
      // The skip is recorded and readable, and health still shows the run that did the work.
      assert.equal((await awaitRun(t.app, body.run_id)).covered_by, runId);
      const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
      assert.equal(health.jobs.find((j: { name: string }) => j.name === JOB).last_run.run_id, runId);

      await windowPasses();
      const third = await trigger(t.app, JOB);
      assert.equal(third.statusCode, 202, third.body);
      await awaitRun(t.app, third.json().run_id);
      assert.deepEqual((await runsOf()).map((r) => r.status).sort(), ['skipped', 'succeeded', 'succeeded']);
    },
  );

  it(
    'answers the same run to the same Idempotency-Key of the same job, whatever the ' +
      'time, and starts no second run',
    async () => {
      const key = { 'idempotency-key': 'cron-2031-04-01T04:45:00Z' };
      const first = await trigger(t.app, JOB, JOB_SECRET, key);
      assert.equal(first.statusCode, 202, first.body);
      const runId = first.json().run_id;
      await awaitRun(t.app, runId);
      await windowPasses();
      const again = await trigger(t.app, JOB, JOB_SECRET, key);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().run_id, runId);
      assert.equal(again.json().status, 'succeeded');
      assert.deepEqual(again.json().result, { refresh_tokens: 0, password_reset_tokens: 0 });
      assert.equal((await runsOf()).length, 1);
      // Another key, or the same key on another job, is another trigger.
      const other = await trigger(t.app, JOB, JOB_SECRET, { 'idempotency-key': 'cron-2031-04-02T04:45:00Z' });
      assert.equal(other.statusCode, 202, other.body);
      await awaitRun(t.app, other.json().run_id);
      const sessions = await trigger(t.app, 'cleanup-device-sessions', JOB_SECRET, key);
      assert.equal(sessions.statusCode, 202, sessions.body);
      await awaitRun(t.app, sessions.json().run_id);
    },
  );

  it('answers two triggers with one key at the same instant with one run', async () => {
    const key = { 'idempotency-key': 'same-instant' };
    const answers = await Promise.all([trigger(t.app, JOB, JOB_SECRET, key), trigger(t.app, JOB, JOB_SECRET, key)]);
    assert.equal(answers[0]!.json().run_id, answers[1]!.json().run_id, answers.map((a) => a.body).join(' '));
    await awaitRun(t.app, answers[0]!.json().run_id);
    assert.equal((await runsOf()).length, 1);
  });

  it(
    'refuses an Idempotency-Key longer than 200 characters or with a character that is not printable ' +
      "ASCII, in the contract's shape",
    async () => {
      for (const bad of ['k'.repeat(201), 'tab\there', 'caf\u00e9', '']) {
        const response = await trigger(t.app, JOB, JOB_SECRET, { 'idempotency-key': bad });
        assert.equal(response.statusCode, 422, `${JSON.stringify(bad)}: ${response.body}`);
        assert.deepEqual(response.json().detail[0].loc, ['header', 'idempotency-key']);
      }
      assert.equal((await runsOf()).length, 0);
      const longest = await trigger(t.app, JOB, JOB_SECRET, { 'idempotency-key': '~'.repeat(200) });
      assert.equal(longest.statusCode, 202, longest.body);
      await awaitRun(t.app, longest.json().run_id);
    },
  );
});
