// The one way a job runs, whoever triggers it: claim the job's trigger window, take the job's lock,
// record the run, call the job's function with the current time, record the outcome. A trigger is
// answered as soon as its run is recorded; the run goes on in the background, tracked so that a
// shutdown waits for it or records it interrupted (docs/decisions/126). Never throws: a failure is an
// outcome.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { BoundJob, JobResult, RunUnits } from '../../platform/jobs.ts';
import { settledWithin } from '../../platform/timeouts.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { JOBS_EVENTS } from './jobs.events.ts';
import { safeJobError } from './job-errors.domain.ts';
import type { JobLock } from './job-lock.ts';
import { statusOfUnits, type RunTrigger } from './jobs.domain.ts';
import { LOST_ERROR } from './lost-runs.ts';
import type { Claim, RunRow, RunsRepository } from './runs.repository.ts';

export type { JobResult };

/** A job as the registry holds it: its dependencies are already bound (by its owning module). */
export type RegisteredJob = BoundJob;

/** A job with the trigger window in force (docs/decisions/125). */
interface ConfiguredJob extends RegisteredJob {
  /** A trigger this many seconds after a run claimed the job's window is covered by it; 0: none is. */
  windowSeconds: number;
}

interface Common {
  job: string;
  trigger: RunTrigger;
  /** Null only when the run could not even be recorded (the database is down). */
  runId: string | null;
  startedAt: Date;
  /** Null while running. */
  finishedAt: Date | null;
}

export type RunOutcome =
  | (Common & { status: 'running' })
  | (Common & { status: 'succeeded' | 'partial'; result: JobResult; units: RunUnits | null })
  | (Common & { status: 'failed'; error: string; result?: JobResult; units: RunUnits | null })
  | (Common & { status: 'skipped'; reason: string; coveredBy: string | null });

/** What a trigger is answered: the run it started, the one that covered it, or the one its key names. */
interface Started {
  outcome: RunOutcome;
  /** The Idempotency-Key had been used: `outcome` is that run as recorded, nothing new was recorded. */
  replayed: boolean;
  /** The run's end (for the scheduler, which waits for it); the replayed run as it was, for a replay. */
  done: Promise<RunOutcome>;
}

const OVERLAP_REASON = 'another run of this job is in progress';
const INTERRUPTED_ERROR = 'interrupted: the service shut down before the run ended';

/** Runs deleted per statement, and statements per run at most, when a run prunes its job's history. */
const PRUNE_BATCH = 1_000;
const PRUNE_BATCHES_PER_RUN = 5;
const DAY_MS = 86_400_000;

/** How long, at most, a trigger waits for the lock of a run that has recorded its end (25 × 20 ms). */
const RELEASE_WAITS = 25;
const RELEASE_WAIT_MS = 20;

function coveredReason(claim: Claim, windowSeconds: number): string {
  return `covered by run ${claim.runId}, which started within this job's ${windowSeconds} s trigger window`;
}

/** A recorded run as the runner answers it. */
export function outcomeOf(row: RunRow): RunOutcome {
  const common: Common = {
    job: row.job,
    trigger: row.trigger,
    runId: row.id,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
  const units =
    row.unitsTotal === null
      ? null
      : { total: row.unitsTotal, succeeded: row.unitsSucceeded ?? 0, failed: row.unitsFailed ?? 0 };
  const result = row.result ?? undefined;
  switch (row.status) {
    case 'running':
      return { ...common, status: 'running' };
    case 'skipped':
      return {
        ...common,
        status: 'skipped',
        reason: String(result?.reason ?? ''),
        coveredBy: typeof result?.covered_by === 'string' ? result.covered_by : null,
      };
    case 'failed':
      return { ...common, status: 'failed', error: row.error ?? '', ...(result ? { result } : {}), units };
    default:
      return { ...common, status: row.status, result: result ?? {}, units };
  }
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let settled = false;
  const promise = new Promise<T>((r) => (resolve = r));
  return {
    promise,
    get settled() {
      return settled;
    },
    resolve(value: T) {
      if (settled) return;
      settled = true;
      resolve(value);
    },
  };
}

export function createJobRunner(deps: {
  jobs: readonly ConfiguredJob[];
  repo: RunsRepository;
  lock: JobLock;
  clock: Clock;
  logger: Logger;
  events: Pick<EventPublisher<typeof JOBS_EVENTS>, 'admins'>;
  /** Runs of a job kept: those started in the last `days`, at most `maxPerJob` (decision 852). */
  retention: { days: number; maxPerJob: number };
}) {
  const { repo, lock, clock, logger, retention } = deps;
  const byName = new Map<string, ConfiguredJob>(deps.jobs.map((job) => [job.name, job]));
  /** Every trigger not yet over, and the runs among them that are recorded `running`. */
  const inFlight = new Set<Promise<unknown>>();
  const running = new Map<string, Promise<unknown>>();

  /**
   * Once a run has recorded its end, still holding the job's lock: the job's runs past the retention go,
   * a few short batches a run (a backlog goes over the next runs). This run, the newest, stays, and with it
   * what health, the dashboard and the trigger window read. A failure is logged; the run's outcome stands.
   */
  async function pruneHistory(job: string): Promise<void> {
    const before = new Date(clock.now().getTime() - retention.days * DAY_MS);
    try {
      let deleted = 0;
      for (let batch = 0; batch < PRUNE_BATCHES_PER_RUN; batch++) {
        const n = await repo.prune(job, before, retention.maxPerJob, PRUNE_BATCH);
        deleted += n;
        if (n < PRUNE_BATCH) break;
      }
      if (deleted > 0) logger.info({ job, deleted }, 'old runs of a scheduled job deleted');
    } catch (error) {
      logger.warn({ err: error, job }, 'old runs of a scheduled job could not be deleted');
    }
  }

  /** Calls the job and records how it ended, then prunes its history; throws only when the outcome cannot be recorded. */
  async function execute(job: ConfiguredJob, trigger: RunTrigger, runId: string, startedAt: Date): Promise<RunOutcome> {
    const outcome = await executeOnly(job, trigger, runId, startedAt);
    await pruneHistory(job.name);
    return outcome;
  }

  async function executeOnly(
    job: ConfiguredJob,
    trigger: RunTrigger,
    runId: string,
    startedAt: Date,
  ): Promise<RunOutcome> {
    const common = { job: job.name, trigger, runId, startedAt };
    let result: JobResult;
    try {
      result = await job.run(startedAt);
    } catch (error) {
      const message = safeJobError(error);
      logger.error({ err: error, job: job.name, runId }, 'scheduled job failed');
      const finishedAt = clock.now();
      await repo.finish(runId, { status: 'failed', error: message }, finishedAt);
      return { ...common, finishedAt, status: 'failed', error: message, units: null };
    }
    const units = job.units?.(result) ?? null;
    const status = statusOfUnits(units);
    const finishedAt = clock.now();
    if (status === 'failed') {
      // Every unit it tried failed (e.g. each of 52 credentials): not a success.
      const error = `every ${job.unitName ?? 'unit'} it tried failed (${units!.failed} of ${units!.total})`;
      logger.error({ job: job.name, runId, units }, 'scheduled job failed');
      await repo.finish(runId, { status, result, error, units }, finishedAt);
      return { ...common, finishedAt, status, error, result, units };
    }
    if (status === 'partial') logger.warn({ job: job.name, runId, units }, 'scheduled job partly failed');
    await repo.finish(runId, { status, result, units }, finishedAt);
    return { ...common, finishedAt, status, result, units };
  }

  async function skip(
    job: ConfiguredJob,
    trigger: RunTrigger,
    at: Date,
    reason: string,
    coveredBy: string | null,
    key: string | null,
  ): Promise<Started> {
    const { row, replayed } = await repo.recordSkipped(job.name, trigger, at, reason, coveredBy, key);
    const outcome = outcomeOf(row);
    if (!replayed) logger.info({ job: job.name, trigger, reason }, 'scheduled job skipped');
    return { outcome, replayed, done: Promise.resolve(outcome) };
  }

  function failedToStart(job: string, trigger: RunTrigger, at: Date, error: unknown): RunOutcome {
    // The claim, the lock or the run record failed (the database is down): nothing ran.
    logger.error({ err: error, job }, 'scheduled job could not be run or recorded');
    return {
      job,
      trigger,
      runId: null,
      startedAt: at,
      finishedAt: clock.now(),
      status: 'failed',
      error: safeJobError(error),
      units: null,
    };
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
    return promise;
  }

  async function start(name: string, trigger: RunTrigger, options: { idempotencyKey?: string } = {}): Promise<Started> {
    const job = byName.get(name);
    if (!job) throw new Error(`unknown job ${name}`);
    const key = options.idempotencyKey ?? null;
    const triggeredAt = clock.now();
    const answer = deferred<Started>();

    const done = track(
      (async (): Promise<RunOutcome> => {
        let outcome: RunOutcome;
        try {
          outcome = await attempt(job, trigger, key, triggeredAt, answer);
        } catch (error) {
          outcome = failedToStart(name, trigger, triggeredAt, error);
          if (answer.settled)
            logger.error({ err: error, job: name }, 'the end of a scheduled job run could not be recorded');
          answer.resolve({ outcome, replayed: false, done: Promise.resolve(outcome) });
        }
        return outcome;
      })(),
    );
    const started = await answer.promise;
    return started.replayed || started.outcome.status !== 'running' ? started : { ...started, done };
  }

  /** Resolves `answer` as soon as the trigger's answer is known; returns how the run ended. */
  async function attempt(
    job: ConfiguredJob,
    trigger: RunTrigger,
    key: string | null,
    triggeredAt: Date,
    answer: ReturnType<typeof deferred<Started>>,
  ): Promise<RunOutcome> {
    const answered = async (started: Started): Promise<RunOutcome> => {
      answer.resolve(started);
      if (!started.replayed) await publish(started.outcome);
      return started.outcome;
    };
    if (key !== null) {
      const used = await repo.byKey(job.name, key);
      if (used) return answered({ outcome: outcomeOf(used), replayed: true, done: Promise.resolve(outcomeOf(used)) });
    }
    // A run claimed the window lately (by the database's clock): it did this trigger's work.
    const open = await repo.openClaim(job.name, job.windowSeconds);
    if (open)
      return answered(await skip(job, trigger, triggeredAt, coveredReason(open, job.windowSeconds), open.runId, key));

    let runPromise: Promise<RunOutcome> | undefined;
    const holdAndRun = async () => {
      await interruptLost(job.name);
      // Stamped only now that the run holds the lock, so run records never show overlaps.
      const startedAt = clock.now();
      const claim = await repo.claimAndStart(job.name, trigger, startedAt, job.windowSeconds, key);
      if (!claim.started) return claim;
      const runId = claim.runId;
      answer.resolve({
        outcome: { job: job.name, trigger, runId, startedAt, finishedAt: null, status: 'running' },
        replayed: false,
        done: Promise.resolve({} as RunOutcome),
      });
      runPromise = execute(job, trigger, runId, startedAt);
      running.set(runId, runPromise);
      try {
        return { finished: await runPromise };
      } finally {
        running.delete(runId);
      }
    };
    let locked = await lock.tryWithLock(job.name, holdAndRun);
    // A run that has recorded its end still holds the lock until its transaction commits: a trigger
    // arriving in that moment waits for the release instead of being told a run is in progress.
    for (let wait = 0; !locked.acquired && wait < RELEASE_WAITS && (await lastRunEnded(job)); wait++) {
      await sleep(RELEASE_WAIT_MS);
      locked = await lock.tryWithLock(job.name, holdAndRun);
    }
    if (!locked.acquired) {
      const holder = await runInProgress(job).catch(() => undefined);
      return answered(await skip(job, trigger, triggeredAt, OVERLAP_REASON, holder?.runId ?? null, key));
    }
    const value = locked.value;
    if ('finished' in value) {
      await publish(value.finished);
      return value.finished;
    }
    if ('replay' in value)
      return answered({
        outcome: outcomeOf(value.replay),
        replayed: true,
        done: Promise.resolve(outcomeOf(value.replay)),
      });
    return answered(
      await skip(job, trigger, triggeredAt, coveredReason(value.covered, job.windowSeconds), value.covered.runId, key),
    );
  }

  /** Holding the job's lock, its runs still `running` are lost ones: recorded failed (decision 985). */
  async function interruptLost(job: string): Promise<void> {
    const runIds = await repo.interruptRunning(job, LOST_ERROR, clock.now());
    if (runIds.length > 0) logger.warn({ job, runIds }, 'scheduled job runs never recorded as ended marked failed');
  }

  /** Whether the job's last claimed run has recorded its end (a lock still held is being released). */
  async function lastRunEnded(job: ConfiguredJob): Promise<boolean> {
    const claim = await repo.claimOf(job.name).catch(() => undefined);
    const run = claim && (await repo.find(claim.runId).catch(() => undefined));
    return run !== undefined && run.status !== 'running';
  }

  /**
   * The run holding the job's lock, to name it in the skip: the lock may have been taken a moment ago
   * and its claim not yet written, so a claim within the window is waited for (at most half a second);
   * else the last claim (a run that started before the window).
   */
  async function runInProgress(job: ConfiguredJob): Promise<Claim | undefined> {
    for (let attempt = 0; job.windowSeconds > 0 && attempt < 25; attempt++) {
      const open = await repo.openClaim(job.name, job.windowSeconds);
      if (open) return open;
      await sleep(20);
    }
    return repo.claimOf(job.name);
  }

  async function publish(outcome: RunOutcome): Promise<void> {
    // Only ended runs are published (an answered trigger was skipped, a finished run ended).
    if (outcome.status === 'running') return;
    if (byName.get(outcome.job)?.announce === false) return;
    const { job, runId, trigger, status, startedAt, finishedAt } = outcome;
    await deps.events.admins('job.finished', {
      job,
      run_id: runId,
      trigger,
      status,
      started_at: startedAt.toISOString(),
      finished_at: (finishedAt ?? clock.now()).toISOString(),
    });
  }

  return {
    jobs: deps.jobs,
    find: (name: string) => byName.get(name),

    /** Starts a run; answers once it is recorded (or skipped, or replayed), while it goes on. */
    start,

    /** Runs a job by name and waits for its end, as the in-process scheduler does. */
    async run(name: string, trigger: RunTrigger): Promise<RunOutcome> {
      return (await start(name, trigger)).done;
    },

    /** Waits up to `boundMs` for the runs in progress; those still running then are recorded interrupted. */
    async drain(boundMs: number): Promise<void> {
      if (inFlight.size === 0) return;
      if (await settledWithin(Promise.allSettled([...inFlight]), boundMs)) return;
      for (const runId of running.keys()) {
        logger.warn({ runId }, 'scheduled job run interrupted by shutdown');
        await repo
          .finish(runId, { status: 'failed', error: INTERRUPTED_ERROR }, clock.now())
          .catch((error: unknown) => logger.error({ err: error, runId }, 'an interrupted run could not be recorded'));
      }
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
