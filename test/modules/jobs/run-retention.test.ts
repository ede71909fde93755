// The run history is kept for JOB_RUNS_RETENTION_DAYS and at most JOB_RUNS_MAX_PER_JOB runs of a job: each
// run, once it has recorded its end, deletes its job's older runs in short batches (at most 5,000 a run),
// and the public health answer still shows each job's newest run (decision 852).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { JOB_SECRET, NOW } from './jobs-fixtures.ts';

const BY_COUNT = 'cleanup-expired-tokens';
const BY_AGE = 'cleanup-grace-periods';
const UNTOUCHED = 'cleanup-device-sessions';

describe('scheduled job run retention', () => {
  let t: TestApp;
  const clock = fixedClock(NOW);

  /** Inserts `n` finished runs of `job`, the k-th (from 0) started `hoursAgo(k)` hours before NOW. */
  const seed = (job: string, n: number, hoursAgo: string, status = 'succeeded') =>
    t.database.rows(
      sql.raw(`
      INSERT INTO scheduled_job_runs (job, trigger, started_at, finished_at, status, result)
      SELECT '${job}', 'scheduler', s, s + interval '1 second', '${status}', '{}'::jsonb
      FROM (SELECT '${NOW.toISOString()}'::timestamptz - interval '1 hour' * (${hoursAgo}) AS s
            FROM generate_series(0, ${n - 1}) AS k) AS starts`),
    );
  const runsOf = (job: string) =>
    t.database.rows<{ id: string; started_at: string | Date }>(
      sql`SELECT id, started_at FROM scheduled_job_runs WHERE job = ${job} ORDER BY started_at DESC, id DESC`,
    );
  const health = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/scheduled/health' });
    assert.equal(response.statusCode, 200);
    const jobs = response.json().jobs as { name: string; last_run: { run_id: string; status: string } | null }[];
    return new Map(jobs.map((job) => [job.name, job.last_run]));
  };

  before(async () => {
    t = await buildTestApp({
      clock,
      env: {
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        JOB_TRIGGER_WINDOW_SECONDS: '0',
        JOB_RUNS_RETENTION_DAYS: '30',
        JOB_RUNS_MAX_PER_JOB: '50',
      },
    });
    // Hourly for ten months, the newest an hour ago, and a skipped trigger since.
    await seed(BY_COUNT, 7_000, 'k + 1');
    await seed(BY_COUNT, 1, '0.5', 'skipped');
    // Daily for 40 days: the 30 started within 30 days stay.
    await seed(BY_AGE, 40, 'k * 24 + 1');
    // A job that does not run keeps its runs, however old.
    await seed(UNTOUCHED, 20, '5000 + k');
  });
  after(() => t.close());

  it('keeps the newest runs of a job up to the maximum, deleting at most 5,000 a run', async () => {
    const untouched = (await health()).get(UNTOUCHED);
    const first = await t.modules.jobs.run(BY_COUNT, 'http');
    assert.equal(first.status, 'succeeded');
    // 7,002 runs: 5,000 of the oldest went, in batches; the next run deletes the rest past the newest 50.
    assert.equal((await runsOf(BY_COUNT)).length, 2_002);
    clock.advance(60_000);
    const second = await t.modules.jobs.run(BY_COUNT, 'http');
    const kept = await runsOf(BY_COUNT);
    assert.equal(kept.length, 50);
    assert.equal(kept[0]!.id, second.runId);
    assert.ok(kept.some((run) => run.id === first.runId));

    const after = await health();
    assert.deepEqual(after.get(BY_COUNT), { ...after.get(BY_COUNT), run_id: second.runId, status: 'succeeded' });
    assert.deepEqual(after.get(UNTOUCHED), untouched);
    assert.equal((await runsOf(UNTOUCHED)).length, 20);
  });

  it('deletes the runs started before the retention, keeping the newer ones', async () => {
    const run = await t.modules.jobs.run(BY_AGE, 'http');
    const kept = await runsOf(BY_AGE);
    assert.equal(kept.length, 31);
    const oldest = new Date(kept.at(-1)!.started_at).getTime();
    assert.equal(oldest, NOW.getTime() - (29 * 24 + 1) * 3_600_000);
    assert.equal((await health()).get(BY_AGE)?.run_id, run.runId);
  });
});
