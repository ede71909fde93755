// The optional in-process scheduler (SCHEDULER=internal): one cron timer per job, each only calling
// the runner. Several instances may all run it; the job lock lets one run at a time (docs/decisions/071).
import { Cron } from 'croner';
import type { Logger } from 'pino';

export interface Timer {
  stop(): void;
  nextRun(): Date | null;
}

/** Creates a timer that calls `fire` on the cron schedule; injectable so tests need not wait for a minute. */
export type TimerFactory = (cron: string, fire: () => void) => Timer;

/** Croner in UTC; `protect` keeps one timer from overlapping itself within this process. */
export const cronerTimers: TimerFactory = (cron, fire) => {
  const job = new Cron(cron, { timezone: 'UTC', protect: true }, fire);
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
            const run = deps.run(job.name).catch((error: unknown) => deps.logger.error({ err: error, job: job.name }, 'scheduled run failed'));
            inFlight.add(run);
            void run.finally(() => inFlight.delete(run));
          }),
        );
      }
      deps.logger.info({ jobs: deps.jobs.map((j) => `${j.name} ${j.cron}`) }, 'in-process job scheduler started');
    },

    /** Stops the timers and waits for runs in progress, so the database is still open while they finish. */
    async stop(): Promise<void> {
      for (const timer of timers.values()) timer.stop();
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
