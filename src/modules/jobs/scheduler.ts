// The optional in-process scheduler (SCHEDULER=internal): one cron timer per job, each only calling
// the runner. Several instances may all run it; the job lock lets one run at a time (docs/decisions/071).
import { Cron } from 'croner';
import type { Logger } from 'pino';
import { CRON_UTC } from '../../config/job-schedules.ts';
import { settledWithin } from '../../platform/timeouts.ts';

export interface Timer {
  stop(): void;
  nextRun(): Date | null;
}

/** Creates a timer that calls `fire` on the cron schedule; injectable so tests need not wait for a minute. */
export type TimerFactory = (cron: string, fire: () => void) => Timer;

/** Croner in UTC; `protect` keeps one timer from overlapping itself within this process. */
export const cronerTimers: TimerFactory = (cron, fire) => {
  const job = new Cron(cron, { ...CRON_UTC, protect: true }, fire);
  return { stop: () => job.stop(), nextRun: () => job.nextRun() };
};

export function createScheduler(deps: {
  jobs: readonly { name: string; cron: string }[];
  run: (name: string) => Promise<unknown>;
  timers?: TimerFactory;
  logger: Pick<Logger, 'info' | 'error'>;
}) {
  const timers = new Map<string, Timer>();
  const inFlight = new Set<Promise<unknown>>();
  const factory = deps.timers ?? cronerTimers;

  return {
    get running(): boolean {
      return timers.size > 0;
    },

    nextRun(name: string): Date | null {
      return timers.get(name)?.nextRun() ?? null;
    },

    start(): void {
      if (timers.size > 0) return;
      for (const job of deps.jobs) {
        timers.set(
          job.name,
          factory(job.cron, () => {
            const run = deps
              .run(job.name)
              .catch((error: unknown) => deps.logger.error({ err: error, job: job.name }, 'scheduled run failed'));
            inFlight.add(run);
            void run.finally(() => inFlight.delete(run));
          }),
        );
      }
      deps.logger.info({ jobs: deps.jobs.map((j) => `${j.name} ${j.cron}`) }, 'in-process job scheduler started');
    },

    /**
     * Stops the timers and waits for runs in progress (at most `boundMs`), so the database is still
     * open while they finish; the runner records those still running then as interrupted.
     */
    async stop(boundMs = Infinity): Promise<void> {
      for (const timer of timers.values()) timer.stop();
      timers.clear();
      const all = Promise.allSettled([...inFlight]);
      if (Number.isFinite(boundMs)) await settledWithin(all, boundMs);
      else await all;
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;

/** The default trigger window (docs/decisions/125), unless the cron's period is shorter than twice it. */
const DEFAULT_TRIGGER_WINDOW_SECONDS = 30;

/** The shortest gap between two firings of `cron` (UTC) over its next runs, in seconds. */
function cronPeriodSeconds(cron: string): number {
  const runs = new Cron(cron, { ...CRON_UTC, paused: true }).nextRuns(25);
  let shortest = Infinity;
  for (let i = 1; i < runs.length; i++)
    shortest = Math.min(shortest, (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000);
  return shortest;
}

/**
 * How long after a run claimed the job's window another trigger is covered by it: JOB_TRIGGER_WINDOW_SECONDS
 * when set, else 30 s or half the cron's period when that is shorter; never more than the period.
 */
export function triggerWindowSeconds(cron: string, configured: number | undefined): number {
  const period = cronPeriodSeconds(cron);
  return Math.min(configured ?? Math.min(DEFAULT_TRIGGER_WINDOW_SECONDS, period / 2), period);
}
