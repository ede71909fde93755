// Scheduled jobs: the runner that locks and records every run of the jobs the modules bound (each owns
// its jobs, decision 230), the HTTP triggers under /api/scheduled/..., and the optional in-process
// scheduler.
import { ConfigError } from '../../config/config.ts';
import { unknownJob } from '../../config/job-schedules.ts';
import type { Platform } from '../../platform/platform.ts';
import type { JobsDeps } from './jobs.deps.ts';
import { createJobLock } from './job-lock.ts';
import { createJobRunner } from './job-runner.ts';
import { createLostRunSweeper, LOST_RUN_SWEEP_MS } from './lost-runs.ts';
import { jobsRoutes } from './routes/jobs.routes.ts';
import { createJobsService } from './jobs.service.ts';
import { createRegistry } from './registry.ts';
import { createRunsRepository } from './runs.repository.ts';
import { createScheduler, triggerWindowSeconds, type TimerFactory } from './scheduler.ts';
import { createSecretGuard } from './secret-guard.ts';

export type { JobRun } from './jobs.domain.ts';
export type { RunOutcome } from './job-runner.ts';
export { JOBS_MODULE } from './jobs.module.ts';

export function createJobsModule(
  platform: Platform,
  deps: JobsDeps,
  options: { timers?: TimerFactory; lostRunSweepMs?: number } = {},
) {
  const { config, database, clock, logger } = platform;
  const registered = createRegistry(deps.jobs, deps.names);
  // Config checks the names when its caller passes them (the entry points do); a config
  // read without them is checked here.
  const strangers = Object.keys(config.jobs.crons).filter((name) => !deps.names.includes(name));
  if (strangers.length > 0)
    throw new ConfigError(strangers.map((name) => `SCHEDULER_CRONS: "${name}" ${unknownJob(deps.names)}`));
  // SCHEDULER_CRONS replaces a job's default cron; health shows the schedule in force. The trigger
  // window is a share of the cron's period, never more than the period (docs/decisions/125).
  const jobs = registered.map((job) => {
    const cron = config.jobs.crons[job.name] ?? job.cron;
    return { ...job, cron, windowSeconds: triggerWindowSeconds(cron, config.jobs.triggerWindowSeconds) };
  });
  const repo = createRunsRepository(database.db);
  const lock = createJobLock(database);
  const runner = createJobRunner({
    jobs,
    repo,
    lock,
    clock,
    logger,
    events: deps.events,
    retention: { days: config.jobs.runsRetentionDays, maxPerJob: config.jobs.runsMaxPerJob },
  });
  // Lost runs are swept at start-up and once a period while listening, whatever triggers the jobs.
  const sweeper = createLostRunSweeper({
    jobs: jobs.map((job) => job.name),
    repo,
    lock,
    clock,
    logger,
    periodMs: options.lostRunSweepMs ?? LOST_RUN_SWEEP_MS,
  });
  const scheduler = createScheduler({
    jobs,
    run: (name) => runner.run(name, 'scheduler'),
    timers: options.timers,
    logger,
  });
  const service = createJobsService({
    jobs,
    repo,
    scheduler,
    settings: { scheduler: config.jobs.scheduler, secretConfigured: config.jobs.secret !== undefined },
  });

  /** Starts the lost-run sweep, and the in-process scheduler when SCHEDULER=internal; call when the server listens. */
  function start(): void {
    sweeper.start();
    if (config.jobs.scheduler === 'internal') scheduler.start();
  }
  /**
   * Stops the scheduler and waits for the runs in progress, whoever triggered them, within the
   * shutdown bound (less the drain second and a margin to close); those still running then are
   * recorded as interrupted. Call before the database closes.
   */
  async function stop(): Promise<void> {
    const bound = Math.max(0, config.resilience.shutdownTimeoutMs - 2_000);
    await Promise.all([scheduler.stop(bound), runner.drain(bound), sweeper.stop()]);
  }

  return {
    name: 'jobs',
    routes: jobsRoutes({ runner, service, guard: createSecretGuard(config.jobs.secret) }),
    /** Runs a job by name and waits for its end (never throws; a failure is an outcome). */
    run: runner.run,
    /** Starts a run as the HTTP triggers do: answers once it is recorded. */
    startRun: runner.start,
    /** Every job's name, in the registry's order. */
    names: jobs.map((job) => job.name),
    /** For the dashboard: the newest finished run of each job that has run at least once. */
    lastRuns: service.lastRuns,
    start,
    stop,
    hooks: { ready: sweeper.sweep, listening: start, closed: stop },
  };
}

export type JobsModule = ReturnType<typeof createJobsModule>;
