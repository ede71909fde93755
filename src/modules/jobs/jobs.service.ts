// Reads over the run history: the public health answer, one run by id, and `lastRuns()` for the dashboard.
import { notFound, unavailable } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { JobRun } from './jobs.domain.ts';
import { outcomeOf, type RegisteredJob, type RunOutcome } from './job-runner.ts';
import type { RunRow, RunsRepository } from './runs.repository.ts';
import type { Scheduler } from './scheduler.ts';

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

    async health() {
      let rows: RunRow[];
      try {
        // Skipped triggers did no work: the run that covered them tells the outcome.
        rows = await repo.newestPerJob(names, { ranOnly: true });
      } catch (error) {
        throw unavailable('The run history cannot be read: the database is unavailable', { cause: error });
      }
      const byJob = new Map(rows.map((row) => [row.job, row]));
      return {
        status: 'ok',
        scheduler: settings.scheduler,
        scheduler_running: scheduler.running,
        secret_configured: settings.secretConfigured,
        jobs: jobs.map((job) => {
          const row = byJob.get(job.name);
          return {
            name: job.name,
            path: `/api/scheduled/${job.name}`,
            cron: job.cron,
            next_run: iso(scheduler.nextRun(job.name)),
            last_run: row
              ? {
                  run_id: row.id,
                  status: row.status,
                  trigger: row.trigger,
                  started_at: iso(row.startedAt)!,
                  finished_at: iso(row.finishedAt),
                  units:
                    row.unitsTotal === null
                      ? null
                      : { total: row.unitsTotal, succeeded: row.unitsSucceeded ?? 0, failed: row.unitsFailed ?? 0 },
                }
              : null,
          };
        }),
      };
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
