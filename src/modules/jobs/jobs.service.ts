// Reads over the run history: the public health answer, one run by id, and `lastRuns()` for the dashboard.
import { notFound, unavailable } from '../../platform/http/errors.ts';
import type { JobRun } from './jobs.domain.ts';
import { outcomeOf, type RegisteredJob, type RunOutcome } from './job-runner.ts';
import type { RunRow, RunsRepository } from './runs.repository.ts';
import type { Scheduler } from './scheduler.ts';

/** When to ask again after the database failed an answer, as the app's own 503 for it says (decision 953). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** The scheduler's settings, and every job with its next scheduled run and newest run that did work. */
export interface JobsHealthState {
  scheduler: 'off' | 'internal';
  /** The in-process scheduler runs in this instance. */
  schedulerRunning: boolean;
  secretConfigured: boolean;
  jobs: { name: string; cron: string; nextRun: Date | null; lastRun: RunRow | null }[];
}

export function createJobsService(deps: {
  jobs: readonly RegisteredJob[];
  repo: RunsRepository;
  scheduler: Pick<Scheduler, 'running' | 'nextRun'>;
  settings: { scheduler: 'off' | 'internal'; secretConfigured: boolean };
}) {
  const { jobs, repo, scheduler, settings } = deps;
  const names = jobs.map((job) => job.name);

  return {
    /** The newest finished (or skipped) run of each job that has run at least once, in registry order. */
    async lastRuns(): Promise<JobRun[]> {
      const rows = await repo.newestPerJob(names, { finishedOnly: true });
      const byJob = new Map(rows.map((row) => [row.job, row]));
      return names.flatMap((name) => {
        const row = byJob.get(name);
        if (!row) return [];
        return [
          {
            job: row.job,
            status: row.status as JobRun['status'],
            trigger: row.trigger,
            startedAt: row.startedAt,
            finishedAt: row.finishedAt,
            error: row.error,
          },
        ];
      });
    },

    /** One run by id; 404 for an unknown one. */
    async run(id: string): Promise<RunOutcome> {
      const row = await repo.find(id);
      if (!row) throw notFound('Run not found');
      return outcomeOf(row);
    },

    /** Every job with its next scheduled run and newest run that did work; 503 when the history cannot be read. */
    async health(): Promise<JobsHealthState> {
      let rows: RunRow[];
      try {
        // Skipped triggers did no work: the run that covered them tells the outcome.
        rows = await repo.newestPerJob(names, { ranOnly: true });
      } catch (error) {
        throw unavailable('The run history cannot be read: the database is unavailable', {
          cause: error,
          headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
        });
      }
      const byJob = new Map(rows.map((row) => [row.job, row]));
      return {
        scheduler: settings.scheduler,
        schedulerRunning: scheduler.running,
        secretConfigured: settings.secretConfigured,
        jobs: jobs.map((job) => ({
          name: job.name,
          cron: job.cron,
          nextRun: scheduler.nextRun(job.name),
          lastRun: byJob.get(job.name) ?? null,
        })),
      };
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
