// The only SQL over scheduled_job_runs and scheduled_job_claims.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, lt, ne, or, sql } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Db } from '../../platform/db/database.ts';
import type { LockTaken } from './job-lock.ts';
import type { JobName, RunTrigger, RunUnits } from './jobs.domain.ts';
import { scheduledJobClaims, scheduledJobRuns } from './jobs.tables.ts';
import { descending } from '../../platform/db/order.ts';

/**
 * A run in progress, written as the partial index's own predicate: bound as `status = $n`, the one plan for
 * any value could not use that index and read the jobs' whole history (decision 1420).
 */
const RUNNING = sql`${scheduledJobRuns.status} = 'running'`;

export type RunRow = typeof scheduledJobRuns.$inferSelect;

/** PostgreSQL's unique_violation, whichever driver (and drizzle's wrapper) raised it. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505') return true;
  }
  return false;
}

/** The run that claimed a job's window, when the window is still open by the database's clock. */
export interface Claim {
  runId: string;
  claimedAt: Date;
}

type StartResult =
  | { started: true; runId: string }
  | { started: false; covered: Claim }
  | { started: false; replay: RunRow };

export function createRunsRepository(db: Db) {
  const byKey = async (job: JobName, key: string): Promise<RunRow | undefined> => {
    const [row] = await db
      .select()
      .from(scheduledJobRuns)
      .where(and(eq(scheduledJobRuns.job, job), eq(scheduledJobRuns.idempotencyKey, key)))
      .limit(1);
    return row;
  };

  return {
    /** The run an Idempotency-Key of this job was answered with, if any. */
    byKey,

    /**
     * The claim of the job's window when it is still open: claimed less than `windowSeconds` ago by the
     * database's clock (clock_timestamp(), so instances' clocks never matter).
     */
    async openClaim(job: JobName, windowSeconds: number): Promise<Claim | undefined> {
      if (windowSeconds <= 0) return undefined;
      const [row] = await db
        .select({ runId: scheduledJobClaims.runId, claimedAt: scheduledJobClaims.claimedAt })
        .from(scheduledJobClaims)
        .where(
          and(
            eq(scheduledJobClaims.job, job),
            sql`${scheduledJobClaims.claimedAt} > clock_timestamp() - make_interval(secs => ${windowSeconds})`,
          ),
        );
      return row;
    },

    /**
     * Claims the job's window and records the run as `running`, in one transaction: the claim succeeds
     * only when the previous one is `windowSeconds` old or more by the database's clock (an atomic
     * conditional upsert, so of two triggers anywhere exactly one claims). Otherwise the run that
     * holds the window is answered. A run whose Idempotency-Key was already used is not recorded: the
     * run of that key is answered instead.
     */
    async claimAndStart(
      job: JobName,
      trigger: RunTrigger,
      at: Date,
      windowSeconds: number,
      key: string | null,
    ): Promise<StartResult> {
      const runId = randomUUID();
      try {
        return await db.transaction(async (tx): Promise<StartResult> => {
          const claimed = await tx
            .insert(scheduledJobClaims)
            .values({ job, runId, claimedAt: sql`clock_timestamp()` })
            .onConflictDoUpdate({
              target: scheduledJobClaims.job,
              set: { runId, claimedAt: sql`clock_timestamp()` },
              where: sql`${scheduledJobClaims.claimedAt}
                <= clock_timestamp() - make_interval(secs => ${windowSeconds})`,
            })
            .returning({ runId: scheduledJobClaims.runId });
          if (claimed.length === 0) {
            const [holder] = await tx
              .select({ runId: scheduledJobClaims.runId, claimedAt: scheduledJobClaims.claimedAt })
              .from(scheduledJobClaims)
              .where(eq(scheduledJobClaims.job, job));
            return { started: false, covered: holder! };
          }
          await tx
            .insert(scheduledJobRuns)
            .values({ id: runId, job, trigger, startedAt: at, status: 'running', idempotencyKey: key });
          return { started: true, runId };
        });
      } catch (error) {
        const replay = key !== null && isUniqueViolation(error) ? await byKey(job, key) : undefined;
        if (replay) return { started: false, replay };
        throw error;
      }
    },

    async finish(
      id: string,
      outcome: {
        status: 'succeeded' | 'partial' | 'failed';
        result?: Record<string, unknown>;
        error?: string;
        units?: RunUnits | null;
      },
      at: Date,
    ): Promise<void> {
      const units = outcome.units ?? null;
      await db
        .update(scheduledJobRuns)
        .set({
          status: outcome.status,
          result: outcome.result ?? null,
          error: outcome.error ?? null,
          unitsTotal: units?.total ?? null,
          unitsSucceeded: units?.succeeded ?? null,
          unitsFailed: units?.failed ?? null,
          finishedAt: at,
        })
        // A run a shutdown recorded as interrupted stays so.
        .where(and(eq(scheduledJobRuns.id, id), RUNNING));
    },

    /**
     * Records as failed, with `error`, every run of `job` still `running`. Called only while holding the job's
     * lock (decision 985): no run of it can be in progress then, so each is a run whose end was never
     * recorded (its process was killed, or the database was away when it ended). Answers their ids.
     */
    async interruptRunning(job: JobName, error: string, at: Date): Promise<string[]> {
      const rows = await db
        .update(scheduledJobRuns)
        .set({ status: 'failed', error, finishedAt: at })
        .where(and(eq(scheduledJobRuns.job, job), RUNNING))
        .returning({ id: scheduledJobRuns.id });
      return rows.map((row) => row.id);
    },

    /** Which of `jobs` have a run recorded `running`: down the partial index of such runs. */
    async runningJobs(jobs: readonly JobName[]): Promise<string[]> {
      if (jobs.length === 0) return [];
      const rows = await db
        .selectDistinct({ job: scheduledJobRuns.job })
        .from(scheduledJobRuns)
        .where(and(RUNNING, inArray(scheduledJobRuns.job, [...jobs])));
      return rows.map((row) => row.job);
    },

    /**
     * Records as failed, with `error`, every run still `running` of each of `jobs` whose lock the statement
     * takes (`taken`, decision 1000): one statement, whatever the number of jobs. Only the jobs that have such
     * a run are tried (a lock tried is a lock taken, for the statement's moment), each once; both reads go down
     * the partial index of running runs. Answers the runs it recorded.
     */
    async interruptLost(
      jobs: readonly JobName[],
      error: string,
      at: Date,
      taken: LockTaken,
    ): Promise<{ id: string; job: string }[]> {
      if (jobs.length === 0) return [];
      const runs = scheduledJobRuns;
      const names = sql.join(
        jobs.map((job) => sql`${job}`),
        sql`, `,
      );
      const result = (await db.execute(sql`
        WITH lost AS MATERIALIZED (
          SELECT DISTINCT ${runs.job} AS job FROM ${runs} WHERE ${runs.status} = 'running' AND ${runs.job} IN (${names})
        ), free AS MATERIALIZED (
          SELECT lost.job FROM lost WHERE ${taken(sql`lost.job`)}
        )
        UPDATE ${runs} SET status = 'failed', error = ${error}, finished_at = ${at.toISOString()}::timestamptz
        WHERE ${runs.status} = 'running' AND ${runs.job} IN (SELECT free.job FROM free)
        RETURNING ${runs.id} AS id, ${runs.job} AS job`)) as unknown as { rows: { id: string; job: string }[] };
      return result.rows;
    },

    /**
     * Records a skipped trigger; `result` holds the reason and the run that covered it. With an
     * Idempotency-Key already used, nothing is recorded and the run of that key is answered.
     */
    async recordSkipped(
      job: JobName,
      trigger: RunTrigger,
      at: Date,
      reason: string,
      coveredBy: string | null,
      key: string | null,
    ): Promise<{ row: RunRow; replayed: boolean }> {
      try {
        const [row] = await db
          .insert(scheduledJobRuns)
          .values({
            job,
            trigger,
            startedAt: at,
            finishedAt: at,
            status: 'skipped',
            result: { reason, covered_by: coveredBy },
            idempotencyKey: key,
          })
          .returning();
        return { row: row!, replayed: false };
      } catch (error) {
        const replay = key !== null && isUniqueViolation(error) ? await byKey(job, key) : undefined;
        if (replay) return { row: replay, replayed: true };
        throw error;
      }
    },

    /** The run that claimed the job's window last, however long ago. */
    async claimOf(job: JobName): Promise<Claim | undefined> {
      const [row] = await db
        .select({ runId: scheduledJobClaims.runId, claimedAt: scheduledJobClaims.claimedAt })
        .from(scheduledJobClaims)
        .where(eq(scheduledJobClaims.job, job));
      return row;
    },

    /**
     * The newest run of each of `jobs`, optionally ignoring runs in progress or skipped triggers: one
     * `LIMIT 1` per job down the (job, started_at) index, so the public health answer costs the same
     * whatever the history holds (decision 780). A DISTINCT ON over the jobs read and sorted every run
     * ever recorded (the table is never pruned): 0.9 s at 300,000 runs, for each anonymous call.
     */
    async newestPerJob(
      jobs: readonly JobName[],
      options: { finishedOnly?: boolean; ranOnly?: boolean },
    ): Promise<RunRow[]> {
      const newest = (job: JobName) =>
        db
          .select()
          .from(scheduledJobRuns)
          .where(
            and(
              eq(scheduledJobRuns.job, job),
              options.finishedOnly ? ne(scheduledJobRuns.status, 'running') : undefined,
              options.ranOnly ? ne(scheduledJobRuns.status, 'skipped') : undefined,
            ),
          )
          .orderBy(descending(scheduledJobRuns.startedAt), descending(scheduledJobRuns.id))
          .limit(1);
      const [first, ...rest] = jobs.map(newest);
      if (!first) return [];
      return rest.length === 0 ? first : unionAll(first, ...(rest as [typeof first, ...(typeof first)[]]));
    },

    /**
     * Deletes at most `limit` runs of `job`, oldest first, among those started before `before` and those
     * past its `keep` newest (decision 852): one short statement down the (job, started_at) index,
     * whatever the history holds. Answers how many it deleted.
     */
    async prune(job: JobName, before: Date, keep: number, limit: number): Promise<number> {
      const runs = scheduledJobRuns;
      // The oldest of the runs past the `keep` newest: it and every older run go.
      const boundary = sql`(SELECT b.started_at, b.id FROM ${runs} b WHERE b.job = ${job}
        ORDER BY b.started_at DESC NULLS LAST, b.id DESC NULLS LAST OFFSET ${keep} LIMIT 1)`;
      const oldest = db
        .select({ id: runs.id })
        .from(runs)
        .where(
          and(eq(runs.job, job), or(lt(runs.startedAt, before), sql`(${runs.startedAt}, ${runs.id}) <= ${boundary}`)),
        )
        .orderBy(runs.startedAt, runs.id)
        .limit(limit);
      // The ids as an array, each deleted by its key: as `id IN (…)`, the one plan for any limit expected
      // many and read every run of every job to join them (decision 1430).
      const deleted = await db.delete(runs).where(sql`${runs.id} = ANY(ARRAY(${oldest}))`).returning({ id: runs.id });
      return deleted.length;
    },

    async find(id: string): Promise<RunRow | undefined> {
      const [row] = await db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, id)).limit(1);
      return row;
    },
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
