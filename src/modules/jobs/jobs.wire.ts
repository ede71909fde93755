// The jobs module's health answer on the wire: the service returns the scheduler's settings and
// each job's run rows, and the health route answers them through this mapper, typed by its
// response schema. A job's result is a wire of its own, declared and built in the job's file.
import type { Static } from 'typebox';
import { iso } from '../../platform/http/schemas.ts';
import type { JobsHealth } from './jobs.schemas.ts';
import type { JobsHealthState } from './jobs.service.ts';

export function jobsHealthWire(state: JobsHealthState): Static<typeof JobsHealth> {
  return {
    status: 'ok',
    scheduler: state.scheduler,
    scheduler_running: state.schedulerRunning,
    secret_configured: state.secretConfigured,
    jobs: state.jobs.map((job) => {
      const row = job.lastRun;
      return {
        name: job.name,
        path: `/api/scheduled/${job.name}`,
        cron: job.cron,
        next_run: iso(job.nextRun),
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
}
