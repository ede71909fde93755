// The only SQL over scheduled_job_runs.
import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import type { Db } from '../../platform/db/database.ts';
import type { JobName, RunTrigger } from './jobs.domain.ts';
import { scheduledJobRuns } from './jobs.tables.ts';

export type RunRow = typeof scheduledJobRuns.$inferSelect;

export function createRunsRepository(db: Db) {
  return {
    async start(job: JobName, trigger: RunTrigger, at: Date): Promise<string> {
      const [row] = await db.insert(scheduledJobRuns).values({ job, trigger, startedAt: at, status: 'running' }).returning({ id: scheduledJobRuns.id });
      return row!.id;
    },

    async finish(id: string, outcome: { status: 'succeeded' | 'failed'; result?: Record<string, unknown>; error?: string }, at: Date): Promise<void> {
      await db
        .update(scheduledJobRuns)
        .set({ status: outcome.status, result: outcome.result ?? null, error: outcome.error ?? null, finishedAt: at })
        .where(eq(scheduledJobRuns.id, id));
    },

    async recordSkipped(job: JobName, trigger: RunTrigger, at: Date, reason: string): Promise<string> {
      const [row] = await db
        .insert(scheduledJobRuns)
        .values({ job, trigger, startedAt: at, finishedAt: at, status: 'skipped', result: { reason } })
        .returning({ id: scheduledJobRuns.id });
      return row!.id;
    },

    /** The newest run of each of `jobs` (one index scan per job), optionally ignoring runs in progress. */
    async newestPerJob(jobs: readonly JobName[], finishedOnly: boolean): Promise<RunRow[]> {
      if (jobs.length === 0) return [];
      return db
        .selectDistinctOn([scheduledJobRuns.job])
        .from(scheduledJobRuns)
        .where(and(inArray(scheduledJobRuns.job, [...jobs]), finishedOnly ? ne(scheduledJobRuns.status, 'running') : undefined))
        .orderBy(scheduledJobRuns.job, desc(scheduledJobRuns.startedAt), desc(scheduledJobRuns.id));
    },

    async find(id: string): Promise<RunRow | undefined> {
      const [row] = await db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, id)).limit(1);
      return row;
    },
  };
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
