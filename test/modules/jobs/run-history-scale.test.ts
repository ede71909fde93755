// The public GET /api/scheduled/health and the dashboard read each job's newest run; the run history is
// never pruned and grows by every trigger, skipped ones included. With 60,000 runs stored, the statements
// the repository runs for them are executed under EXPLAIN ANALYZE and the rows their scans read are
// counted: a few per job, where a DISTINCT ON over the history read all of them (decision 780).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { JOB_NAMES } from '../../../src/declarations.ts';
import { createRunsRepository, type RunRow } from '../../../src/modules/jobs/runs.repository.ts';
import {
  executedPlan,
  planClient,
  plansOf,
  rowsRead,
  rowsReadUnderGenericPlans,
  type PlanClient,
} from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const ROWS = 60_000;
/** The newest run of each job by a plain reading of the whole history: what the answer must equal. */
const REFERENCE = (statusFilter: string) => `
  SELECT DISTINCT ON (job) id FROM scheduled_job_runs WHERE ${statusFilter}
  ORDER BY job, started_at DESC, id DESC`;

describe('scheduled job run history at scale', () => {
  let t: TestApp;
  let client: PlanClient;
  const jobs = [...JOB_NAMES];

  before(async () => {
    t = await buildTestApp();
    client = planClient(t);
    // A minute apart over six weeks, every job in turn; a third are skipped triggers, and the newest run
    // of the first job is still running. Two runs of the last job share a start (ties go by id).
    const names = `ARRAY[${jobs.map((job) => `'${job}'`).join(',')}]`;
    await t.database.rows(
      sql.raw(`
      INSERT INTO scheduled_job_runs (job, trigger, started_at, finished_at, status, result)
      SELECT (${names})[1 + n % ${jobs.length}], 'scheduler',
             now() - make_interval(mins => ${ROWS} - n), now() - make_interval(mins => ${ROWS} - n),
             CASE WHEN (n / ${jobs.length}) % 3 = 0 THEN 'skipped' ELSE 'succeeded' END, '{}'::jsonb
      FROM generate_series(1, ${ROWS}) AS n`),
    );
    await t.database.rows(
      sql.raw(`
      INSERT INTO scheduled_job_runs (job, trigger, started_at, status)
      VALUES ('${jobs[0]}', 'http', now(), 'running'),
             ('${jobs.at(-1)}', 'http', now() - interval '1 second', 'succeeded'),
             ('${jobs.at(-1)}', 'http', now() - interval '1 second', 'succeeded')`),
    );
    await t.database.rows(sql`ANALYZE scheduled_job_runs`);
  });
  after(() => t.close());

  async function newest(options: { finishedOnly?: boolean; ranOnly?: boolean }) {
    let rows: RunRow[] = [];
    const plans = await plansOf(t, async (db) => {
      rows = await createRunsRepository(db).newestPerJob(jobs, options);
    });
    return { rows, reads: plans.map((plan) => rowsRead(plan, 'scheduled_job_runs')) };
  }

  async function reference(statusFilter: string): Promise<string[]> {
    const { rows } = await client.query<{ id: string }>(REFERENCE(statusFilter));
    return rows.map((row) => row.id).sort();
  }

  it('reads a handful of runs per job for the health answer, and finds each newest run that did work', async () => {
    const { rows, reads } = await newest({ ranOnly: true });
    assert.ok(
      reads.reduce((a, b) => a + b, 0) <= 10 * jobs.length,
      `rows read: ${reads.join(', ')} for ${jobs.length} jobs`,
    );
    assert.deepEqual(rows.map((row) => row.id).sort(), await reference("status <> 'skipped'"));
    assert.equal(rows.find((row) => row.job === jobs[0])?.status, 'running');
  });

  it('reads a handful of runs per job for the dashboard, leaving out runs in progress', async () => {
    const { rows, reads } = await newest({ finishedOnly: true });
    assert.ok(
      reads.reduce((a, b) => a + b, 0) <= 10 * jobs.length,
      `rows read: ${reads.join(', ')} for ${jobs.length} jobs`,
    );
    assert.deepEqual(rows.map((row) => row.id).sort(), await reference("status <> 'running'"));
    assert.equal(new Set(rows.map((row) => row.job)).size, jobs.length);
  });

  it('the newest run per job read over the whole history counts every run (the positive control)', async () => {
    const plan = await executedPlan(client, REFERENCE("status <> 'skipped'"));
    assert.ok(rowsRead(plan, 'scheduled_job_runs') >= ROWS / 2);
  });

  it('the lost runs sweep finds the jobs with a run in progress from those runs alone, under the one plan', async () => {
    let running: string[] = [];
    const read = await rowsReadUnderGenericPlans(t, 'scheduled_job_runs', async (db) => {
      running = await createRunsRepository(db).runningJobs(jobs);
    });
    assert.deepEqual(running, [jobs[0]]);
    assert.ok(read <= 10, `read ${read} runs to find the one in progress among ${ROWS}`);
  });

  // Last: it deletes runs.
  it("a run's pruning of its job's history reads that job's runs, not every job's", async () => {
    const job = jobs[1]!;
    const [before] = await t.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM scheduled_job_runs WHERE job = ${job}`,
    );
    const keep = before!.n - 20;
    let deleted = 0;
    const read = await rowsReadUnderGenericPlans(t, 'scheduled_job_runs', async (db) => {
      deleted = await createRunsRepository(db).prune(job, new Date(0), keep, 10);
    });
    assert.equal(deleted, 10);
    // The job's own runs, twice at most: the walk past the `keep` newest to the boundary (decision 852), and
    // the oldest found among the job's runs. Not every job's: the delete takes its 10 by their key.
    assert.ok(read <= 2 * before!.n + 100, `read ${read} runs to delete 10 of the job's ${before!.n}, of ${ROWS}`);
  });
});
