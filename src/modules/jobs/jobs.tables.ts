// Every run of a scheduled job, whoever triggered it: the record the health route, the dashboard and
// an operator read to see what the maintenance jobs did. The jobs are the modules' (each declares its
// own), so the tables are built by a factory: the objects exported here are the ones runtime code uses,
// and the schema drizzle-kit reads builds them again with every declared job name (the CHECKs).
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.ts';
import { RUN_STATUSES, RUN_TRIGGERS, type RunStatus, type RunTrigger } from './jobs.domain.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** `jobNames`, when given, are every module's jobs: the database refuses a run of any other. */
export const scheduledJobTables = (jobNames?: readonly string[]) => ({
  scheduledJobRuns: pgTable(
    'scheduled_job_runs',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      /** Registry name, e.g. `rotate-api-keys`, `strategy-autopilot/evaluate`. */
      job: text('job').notNull(),
      trigger: text('trigger').$type<RunTrigger>().notNull(),
      startedAt: at('started_at').notNull(),
      /** Null while the run is in progress (or when the process died during it). */
      finishedAt: at('finished_at'),
      status: text('status').$type<RunStatus>().notNull(),
      /** The job's answer (counts), or `{reason}` of a skipped run. */
      result: jsonb('result').$type<Record<string, unknown>>(),
      /** A safe, one-line message for a failed run; the cause is in the service log. */
      error: text('error'),
      /** Units of a job that works unit by unit (credentials, intel events); null otherwise and while running. */
      unitsTotal: integer('units_total'),
      unitsSucceeded: integer('units_succeeded'),
      unitsFailed: integer('units_failed'),
      /** The trigger's Idempotency-Key: the same key of the same job answers this run again. */
      idempotencyKey: text('idempotency_key'),
    },
    (t) => [
      index('scheduled_job_runs_job_started_idx').on(t.job, t.startedAt.desc()),
      // The runs in progress, or lost (decision 1000): the sweep reads them without the history.
      index('scheduled_job_runs_running_idx').on(t.job).where(sql`${t.status} = 'running'`),
      uniqueIndex('scheduled_job_runs_job_idempotency_key_idx').on(t.job, t.idempotencyKey),
      ...(jobNames ? [check('scheduled_job_runs_job_check', oneOf(t.job, jobNames))] : []),
      check('scheduled_job_runs_trigger_check', oneOf(t.trigger, RUN_TRIGGERS)),
      check('scheduled_job_runs_status_check', oneOf(t.status, RUN_STATUSES)),
    ],
  ),

  /**
   * One row per job: the run that claimed the job's current trigger window, and when by the database's
   * clock. A trigger within the window is covered by that run (docs/decisions/125).
   */
  scheduledJobClaims: pgTable(
    'scheduled_job_claims',
    {
      job: text('job').primaryKey(),
      runId: uuid('run_id').notNull(),
      /** The database's clock_timestamp() when the run claimed the window; never an instance's clock. */
      claimedAt: at('claimed_at').notNull(),
    },
    (t) => (jobNames ? [check('scheduled_job_claims_job_check', oneOf(t.job, jobNames))] : []),
  ),
});

/** The tables at run time; which jobs exist is the modules' declarations' (src/declarations.ts). */
export const { scheduledJobRuns, scheduledJobClaims } = scheduledJobTables();
