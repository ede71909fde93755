// Runs whose end was never recorded (decision 985) are found by a sweep: at start-up, and then once a
// period while the service listens, so a run whose instance died shows failed within a period, not at
// the job's next run or the next start (decision 1000). A sweep is one statement on PostgreSQL, which
// takes the lock of each job that has a run recorded `running` and records those runs failed only where
// the lock was free: a run that another live instance holds the lock for is never touched.
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { JobLock } from './job-lock.ts';
import type { JobName } from './jobs.domain.ts';
import type { RunsRepository } from './runs.repository.ts';

export const LOST_ERROR = 'interrupted: the run ended without its end being recorded';

/** How often a listening instance sweeps: one short statement a minute. */
export const LOST_RUN_SWEEP_MS = 60_000;

export function createLostRunSweeper(deps: {
  jobs: readonly JobName[];
  repo: Pick<RunsRepository, 'runningJobs' | 'interruptLost'>;
  lock: Pick<JobLock, 'withFreeLocks'>;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Between the end of a sweep and the start of the next. */
  periodMs: number;
}) {
  const { jobs, repo, lock, clock, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let started = false;

  /** One sweep; never throws (a failure is logged, the next sweep tries again). */
  async function sweep(): Promise<void> {
    try {
      const lost = await lock.withFreeLocks(
        () => repo.runningJobs(jobs),
        (taken) => repo.interruptLost(jobs, LOST_ERROR, clock.now(), taken),
      );
      const byJob = new Map<string, string[]>();
      for (const { id, job } of lost) byJob.set(job, [...(byJob.get(job) ?? []), id]);
      for (const [job, runIds] of byJob)
        logger.warn({ job, runIds }, 'scheduled job runs never recorded as ended marked failed');
    } catch (error) {
      logger.error({ err: error }, 'lost runs of the scheduled jobs could not be recorded');
    }
  }

  /** Sweeps now, unless a sweep is under way (its answer is then this one's). */
  function sweepOnce(): Promise<void> {
    current ??= sweep().finally(() => (current = undefined));
    return current;
  }

  function schedule(): void {
    if (!started) return;
    // Chained, not an interval: a slow sweep (a database that hangs until its statement bound) never
    // overlaps the next. Unref'd: the timer alone keeps no process alive.
    timer = setTimeout(() => void sweepOnce().then(schedule), deps.periodMs);
    timer.unref();
  }

  return {
    sweep: sweepOnce,

    /** Sweeps once a period from now on; call when the server listens. */
    start(): void {
      if (started) return;
      started = true;
      schedule();
    },

    /** Stops the timer and waits for a sweep under way; call before the database closes. */
    async stop(): Promise<void> {
      started = false;
      clearTimeout(timer);
      await current;
    },
  };
}

export type LostRunSweeper = ReturnType<typeof createLostRunSweeper>;
