// The one way a job runs, whoever triggers it: take the job's lock, record the run, call the job's
// function with the current time, record the outcome. Never throws: a failure is an outcome.
import type { Logger } from 'pino';
import type { TSchema } from 'typebox';
import type { Clock } from '../../platform/clock.ts';
import type { EventPublisher } from '../streams/index.ts';
import { safeJobError } from './job-errors.domain.ts';
import type { JobLock } from './job-lock.ts';
import type { JobName, RunTrigger } from './jobs.domain.ts';
import type { RunsRepository } from './runs.repository.ts';

export type JobResult = Record<string, unknown>;

/** A job as the registry holds it: its dependencies are already bound. */
export interface RegisteredJob {
  /** Also the path under /api/scheduled/. */
  name: JobName;
  /** When the in-process scheduler runs it (UTC cron expression). */
  cron: string;
  summary: string;
  /** What it does, for the OpenAPI description. */
  description: string;
  /** Schema of what it answers. */
  result: TSchema;
  run(now: Date): Promise<JobResult>;
}

interface Common {
  job: string;
  trigger: RunTrigger;
  /** Null only when the run could not even be recorded (the database is down). */
  runId: string | null;
  startedAt: Date;
  finishedAt: Date;
}

export type RunOutcome =
  | (Common & { status: 'succeeded'; result: JobResult })
  | (Common & { status: 'skipped'; reason: string })
  | (Common & { status: 'failed'; error: string });

export const OVERLAP_REASON = 'another run of this job is in progress';

export function createJobRunner(deps: {
  jobs: readonly RegisteredJob[];
  repo: RunsRepository;
  lock: JobLock;
  clock: Clock;
  logger: Logger;
  events: Pick<EventPublisher, 'admins'>;
}) {
  const { repo, lock, clock, logger } = deps;
  const byName = new Map<string, RegisteredJob>(deps.jobs.map((job) => [job.name, job]));

  async function attempt(job: RegisteredJob, trigger: RunTrigger, startedAt: Date): Promise<RunOutcome> {
    let runId: string | null = null;
    const locked = await lock.tryWithLock(job.name, async (): Promise<RunOutcome> => {
      runId = await repo.start(job.name, trigger, startedAt);
      try {
        const result = await job.run(startedAt);
        const finishedAt = clock.now();
        await repo.finish(runId, { status: 'succeeded', result }, finishedAt);
        return { job: job.name, trigger, runId, startedAt, finishedAt, status: 'succeeded', result };
      } catch (error) {
        const message = safeJobError(error);
        logger.error({ err: error, job: job.name, runId }, 'scheduled job failed');
        const finishedAt = clock.now();
        await repo.finish(runId, { status: 'failed', error: message }, finishedAt);
        return { job: job.name, trigger, runId, startedAt, finishedAt, status: 'failed', error: message };
      }
    });
    if (locked.acquired) return locked.value;
    const skippedId = await repo.recordSkipped(job.name, trigger, startedAt, OVERLAP_REASON);
    logger.info({ job: job.name, trigger }, 'scheduled job skipped: already running');
    return { job: job.name, trigger, runId: skippedId, startedAt, finishedAt: startedAt, status: 'skipped', reason: OVERLAP_REASON };
  }

  return {
    jobs: deps.jobs,
    find: (name: string) => byName.get(name),

    async run(name: string, trigger: RunTrigger): Promise<RunOutcome> {
      const job = byName.get(name);
      if (!job) throw new Error(`unknown job ${name}`);
      const startedAt = clock.now();
      let outcome: RunOutcome;
      try {
        outcome = await attempt(job, trigger, startedAt);
      } catch (error) {
        // The lock or the run record itself failed (the database is down): nothing ran, or its
        // outcome could not be written. Either way the caller must see a failure.
        logger.error({ err: error, job: name }, 'scheduled job could not be run or recorded');
        outcome = { job: name, trigger, runId: null, startedAt, finishedAt: clock.now(), status: 'failed', error: safeJobError(error) };
      }
      const { runId, status, finishedAt } = outcome;
      await deps.events.admins('job.finished', { job: name, run_id: runId, trigger, status, started_at: startedAt.toISOString(), finished_at: finishedAt.toISOString() });
      return outcome;
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
