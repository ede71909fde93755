// Reads over the run history: the public health answer and `lastRuns()` for the dashboard.
import { unavailable } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { JobRun } from './jobs.domain.ts';
import type { RegisteredJob } from './job-runner.ts';
import type { RunsRepository } from './runs.repository.ts';
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
      const rows = await repo.newestPerJob(names, true);
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

    async health() {
      let rows;
      try {
        rows = await repo.newestPerJob(names, false);
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
              ? { run_id: row.id, status: row.status, trigger: row.trigger, started_at: iso(row.startedAt)!, finished_at: iso(row.finishedAt) }
              : null,
          };
        }),
      };
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
