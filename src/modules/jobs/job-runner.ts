// The one way a job runs, whoever triggers it: take the job's lock, record the run, call the job's
// function with the current time, record the outcome. Never throws: a failure is an outcome.
import type { Logger } from 'pino';
import type { TSchema } from 'typebox';
import type { Clock } from '../../platform/clock.ts';
import type { EventPublisher } from '../streams/index.ts';
import { safeJobError } from './job-errors.domain.ts';
import type { JobLock } from './job-lock.ts';
import type { JobName, RunTrigger } from './jobs.domain.ts';
import type { RunsRepository, RunsSeen } from './runs.repository.ts';

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
/** Another instance's run started, or was in progress, when this trigger arrived and has now ended. */
export const COVERED_REASON = 'another run of this job started or finished since this trigger';

/** A run that started this soon after a trigger arrived (by the clocks) did that trigger's work. */
const CLOCK_WINDOW_MS = 10_000;

/** How far back a trigger looks at the runs it may be covered by; far longer than any run. */
const SEEN_WINDOW_MS = 60 * 60 * 1000;

/**
 * Whether another trigger did this one's work: a run started after this trigger arrived (by the
 * clocks, strictly later), or since the trigger saw the runs, or one it saw in progress has ended.
 */
function coveredSince(triggeredAt: Date, seen: RunsSeen, now: RunsSeen): boolean {
  const after = now.newestStartedAt ? now.newestStartedAt.getTime() - triggeredAt.getTime() : 0;
  if (after > 0 && after <= CLOCK_WINDOW_MS) return true;
  if (now.count > seen.count) return true;
  return seen.running.some((id) => !now.running.includes(id));
}

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

  async function attempt(job: RegisteredJob, trigger: RunTrigger, triggeredAt: Date): Promise<RunOutcome> {
    // What had run when this trigger arrived: a run that starts (or ends) between now and our lock
    // did this trigger's work, e.g. the same cron firing on two instances at the same instant.
    const since = new Date(triggeredAt.getTime() - SEEN_WINDOW_MS);
    const seen = await repo.seenSince(job.name, since);
    let runId: string | null = null;
    const locked = await lock.tryWithLock(job.name, async (): Promise<RunOutcome | undefined> => {
      if (coveredSince(triggeredAt, seen, await repo.seenSince(job.name, since))) return undefined;
      // Stamped only now that the run holds the lock, so run records never show overlaps.
      const startedAt = clock.now();
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
    if (locked.acquired && locked.value) return locked.value;
    const reason = locked.acquired ? COVERED_REASON : OVERLAP_REASON;
    const skippedId = await repo.recordSkipped(job.name, trigger, triggeredAt, reason);
    logger.info({ job: job.name, trigger, reason }, 'scheduled job skipped');
    return { job: job.name, trigger, runId: skippedId, startedAt: triggeredAt, finishedAt: triggeredAt, status: 'skipped', reason };
  }

  return {
    jobs: deps.jobs,
    find: (name: string) => byName.get(name),

    async run(name: string, trigger: RunTrigger): Promise<RunOutcome> {
      const job = byName.get(name);
      if (!job) throw new Error(`unknown job ${name}`);
      const triggeredAt = clock.now();
      let outcome: RunOutcome;
      try {
        outcome = await attempt(job, trigger, triggeredAt);
      } catch (error) {
        // The lock or the run record itself failed (the database is down): nothing ran, or its
        // outcome could not be written. Either way the caller must see a failure.
        logger.error({ err: error, job: name }, 'scheduled job could not be run or recorded');
        outcome = { job: name, trigger, runId: null, startedAt: triggeredAt, finishedAt: clock.now(), status: 'failed', error: safeJobError(error) };
      }
      const { runId, status, startedAt, finishedAt } = outcome;
      await deps.events.admins('job.finished', { job: name, run_id: runId, trigger, status, started_at: startedAt.toISOString(), finished_at: finishedAt.toISOString() });
      return outcome;
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
